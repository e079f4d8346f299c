/**
 * Network checks run by the agent: `argus-agent run`'s loop (the real runner, scheduler and probes)
 * reports to a real Argus, gets the checks assigned to it with the answer, runs them against
 * servers on loopback, and sends the runs with its reports; the server records them as the
 * location's results and decides the check's state. The server itself may not reach loopback here
 * (no ARGUS_ALLOW_PRIVATE_CHECKS): the agent's checks are exempt from its address policy. While
 * the server is away the runs wait in the buffer, and arrive once it answers again.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { useTestServer } from '../../backend/src/testing/app.js';
import { signedInAs } from '../../backend/src/testing/http.js';
import { openBuffer } from '../src/buffer.js';
import { createCheckScheduler } from '../src/checks.js';
import { createCollector } from '../src/collect.js';
import { parseConfig } from '../src/config.js';
import { hostFacts } from '../src/facts.js';
import { localHost } from '../src/host.js';
import { loadIdentity } from '../src/identity.js';
import { runAgent } from '../src/runner.js';
import { cuttableLink, until } from './link.js';

const WEBHOOK_SECRET = 'agent-checks-webhook-secret-0123456789abc';

interface LocationResult {
  location: string;
  name: string;
  state: string;
  lastResult: { up: boolean; reason: string | null; status: number | null; at: string } | null;
}
interface CheckBody {
  id: number;
  state: string;
  results: LocationResult[];
}

describe('network checks run by an agent', () => {
  const fixture = useTestServer({ WEBHOOK_SECRET });
  let dir: string;
  let admin: Awaited<ReturnType<typeof signedInAs>>;
  let customerId: number;
  let enrollment: string;
  let shop: http.Server;
  let shopAnswer = 200;
  let closedPort: number;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'argus-agent-checks-'));
    admin = await signedInAs(fixture.server.url, fixture.db.knex, 'ADMIN');
    customerId = (await admin.post('/api/customers', { name: 'Shop GmbH' })).body.id;
    enrollment = (await admin.post('/api/clusters', { customerId, name: 'office' })).body.enrollmentKey;
    shop = http.createServer((_req, res) => res.writeHead(shopAnswer).end('welcome to the shop'));
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
    const spare = net.createServer();
    await new Promise<void>((resolve) => spare.listen(0, '127.0.0.1', resolve));
    closedPort = (spare.address() as AddressInfo).port;
    await new Promise((resolve) => spare.close(resolve));
  });
  after(async () => {
    shop.closeAllConnections();
    await new Promise((resolve) => shop.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  it('runs the checks assigned to it; the server records each run as that location', async () => {
    const link = await cuttableLink(Number(new URL(fixture.server.url).port));
    const buffer = await openBuffer(join(dir, 'buffer'));
    const config = parseConfig(
      `webhook_url: "http://127.0.0.1:${link.port}/api/webhook/metrics"\nwebhook_secret: "${WEBHOOK_SECRET}"\n` +
        `enrollment: "${enrollment}"\nstate_dir: "${dir}"\n`,
    );
    const host = localHost();
    const settings = { current: {} as Record<string, unknown> };
    const logs: string[] = [];
    const log = (line: string) => logs.push(line);
    const stop = new AbortController();
    const checks = createCheckScheduler({ log });
    checks.start(stop.signal);
    const running = runAgent(
      {
        config,
        identity: await loadIdentity(dir, host),
        facts: await hostFacts(host),
        collector: createCollector(host, { primeMs: 10, settings: () => settings.current, log }),
        buffer,
        log,
        intervalMs: 500,
        random: () => 0,
        settings,
        checks,
      },
      stop.signal,
    );
    const waitFor = (what: string, check: () => Promise<boolean>, ms = 20_000) =>
      until(what, check, ms).catch((error: Error) => {
        throw new Error(`${error.message}; agent log: ${logs.join(' | ')}`);
      });
    const get = async (id: number) => (await admin.get(`/api/checks/${id}`)).body as CheckBody;
    try {
      let systemId = 0;
      await waitFor('the agent enrolled', async () => {
        const row = await fixture.db.knex('systems').where({ customer_id: customerId, kind: 'agent' }).first('id');
        systemId = (row?.id as number | undefined) ?? 0;
        return systemId > 0;
      });
      const location = `system:${systemId}`;
      const create = (name: string, settings: unknown) =>
        admin.post('/api/checks', {
          customerId,
          name,
          settings,
          intervalSeconds: 20,
          timeoutSeconds: 5,
          retries: 0,
          locations: [location],
        });
      const url = `http://127.0.0.1:${(shop.address() as AddressInfo).port}/`;
      const front = await create('Shop front', { type: 'http', url, keyword: 'welcome' });
      assert.equal(front.status, 201, JSON.stringify(front.body));
      const port = await create('Till port', { type: 'tcp', host: '127.0.0.1', port: closedPort });
      assert.equal(port.status, 201, JSON.stringify(port.body));

      // the server's own try of the same target is refused: loopback is not for the server
      const tried = await admin.post('/api/checks/try', { customerId, settings: { type: 'http', url } });
      assert.match(String(tried.body.reason), /refused by policy/);

      await waitFor('both checks run by the agent', async () => {
        const [a, b] = [await get(front.body.id), await get(port.body.id)];
        return a.state === 'UP' && b.state === 'DOWN';
      });
      const up = await get(front.body.id);
      assert.deepEqual(
        up.results.map((r) => [r.location, r.state, r.lastResult?.up, r.lastResult?.status]),
        [[location, 'UP', true, 200]],
      );
      assert.ok(up.results[0]?.name, 'the location is named by its system');
      const down = await get(port.body.id);
      assert.equal(down.results[0]?.lastResult?.reason, 'connection refused');
      // the runs are the check's own rows, the measurements named by the place they ran from
      const sample = await fixture.db
        .knex('metric_samples')
        .where({ system_id: front.body.id, name: 'check.up' })
        .first();
      assert.deepEqual([sample?.instance, sample?.value], [location, 1]);
      // the assignment is kept with the settings, for the agent's next start
      const saved = JSON.parse(await readFile(join(dir, 'settings.json'), 'utf8')) as { checks: { id: number }[] };
      assert.deepEqual(saved.checks.map((c) => c.id).sort(), [front.body.id, port.body.id].sort());

      // the server away: the next runs wait in the buffer, and arrive when it answers again
      const before = up.results[0]?.lastResult?.at as string;
      shopAnswer = 503;
      await link.cut();
      await waitFor(
        'the failing run kept in the buffer',
        async () =>
          (await buffer.peek(500)).some((report) => report.checks?.some((run) => run.id === front.body.id && !run.up)),
        40_000,
      );
      assert.equal((await get(front.body.id)).state, 'UP', 'nothing reached the server yet');
      await link.restore();
      await waitFor(
        'the buffered run recorded',
        async () => {
          const now = await get(front.body.id);
          return now.state === 'DOWN' && (now.results[0]?.lastResult?.at ?? '') > before;
        },
        30_000,
      );
      assert.equal((await get(front.body.id)).results[0]?.lastResult?.reason, 'status 503');
      await link.close();
    } finally {
      stop.abort();
      await running;
    }
  });
});
