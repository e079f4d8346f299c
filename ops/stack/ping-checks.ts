/**
 * The server's ping checks inside the production image: the app container runs as the image's
 * unprivileged user without NET_RAW, so it pings through iputils' ICMP datagram socket
 * (docs/decisions.md "Network checks"). The targets are on the compose network the test started: the redis container answers;
 * an address of that network's subnet that no container holds does not (nothing leaves the
 * machine: the bridge finds no neighbour for it).
 */
import assert from 'node:assert/strict';
import { waitFor } from '../../backend/src/testing/net.js';
import { containerOf, docker, PROJECT } from './deployment.js';
import type { HttpsClient } from './https-client.js';

interface CheckAnswer {
  id: number;
  state: string;
  lastResult: { up: boolean; reason: string | null; responseMs: number | null; packetLossPct: number | null } | null;
}

/** The compose network's subnet and the address each of its containers holds. */
async function composeNetwork(): Promise<{ subnet: string; taken: Set<string> }> {
  const network = `${PROJECT}_default`;
  const inspected = await docker([
    ...['network', 'inspect', network, '-f'],
    '{{(index .IPAM.Config 0).Subnet}}|{{range .Containers}}{{.IPv4Address}} {{end}}',
  ]);
  assert.equal(inspected.code, 0, inspected.stderr);
  const [subnet = '', addresses = ''] = inspected.stdout.trim().split('|');
  const taken = new Set(
    addresses
      .split(' ')
      .filter(Boolean)
      .map((cidr) => cidr.split('/')[0] as string),
  );
  return { subnet, taken };
}

/** An address inside an IPv4 subnet (`172.18.0.0/16`) that none of `taken` holds, far from those Docker hands out first. */
function unusedAddress(subnet: string, taken: Set<string>): string {
  const [base = ''] = subnet.split('/');
  const octets = base.split('.').map(Number);
  for (let last = 250; last > 100; last--) {
    const address = [...octets.slice(0, 3), last].join('.');
    if (!taken.has(address)) return address;
  }
  throw new Error(`no free address in ${subnet}`);
}

export async function containerAddress(id: string): Promise<string> {
  const out = await docker(['inspect', '-f', '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}', id]);
  return out.stdout.trim();
}

/**
 * Creates a ping check of a container on the compose network and one of an address nobody holds,
 * waits until both have a state, and deletes them. Returns both answers and how long each took.
 */
export async function pingChecksInTheImage(dir: string, api: HttpsClient) {
  const app = await containerOf(dir, 'app');
  const user = await docker(['inspect', '-f', '{{.Config.User}} {{.HostConfig.CapDrop}}', app]);
  // no raw socket for anyone in the container: ping can only take the ICMP datagram socket
  assert.match(user.stdout.trim(), /^node \[.*NET_RAW.*\]$/, 'the image’s unprivileged user, without NET_RAW');
  const customer = await api.request('POST', '/api/customers', { name: 'Ping Ltd' });
  assert.equal(customer.status, 201, JSON.stringify(customer.body));
  const { subnet, taken } = await composeNetwork();
  const redis = await containerAddress(await containerOf(dir, 'redis'));
  assert.ok(taken.has(redis), `redis (${redis}) is on ${subnet}`);
  const silent = unusedAddress(subnet, taken);

  const create = async (name: string, host: string) => {
    const created = await api.request('POST', '/api/checks', {
      customerId: customer.body.id,
      name,
      settings: { type: 'ping', host, count: 2 },
      ...{ intervalSeconds: 20, timeoutSeconds: 2, retries: 0 },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return created.body.id as number;
  };
  const started = performance.now();
  const ids = { up: await create('redis answers', redis), down: await create('nobody there', silent) };
  const settled: Record<string, number> = {};
  const answers: Record<string, CheckAnswer> = {};
  await waitFor(
    async () => {
      for (const [role, id] of Object.entries(ids)) {
        answers[role] = (await api.request('GET', `/api/checks/${id}`)).body as CheckAnswer;
        if (answers[role]?.state !== 'PENDING') settled[role] ??= (performance.now() - started) / 1000;
      }
      return Object.keys(settled).length === 2;
    },
    60_000,
    1000,
  ).catch(() => {
    throw new Error(`the ping checks did not settle: ${JSON.stringify(answers)}`);
  });
  // the checks would go on storing results every 20 s under the later steps, which count rows
  for (const id of Object.values(ids)) assert.equal((await api.request('DELETE', `/api/checks/${id}`)).status, 204);
  return { up: answers['up'] as CheckAnswer, down: answers['down'] as CheckAnswer, redis, silent, settled };
}
