/**
 * What the installer test reads back from the server about an installed agent: its system, how many
 * reports it stored, and ping checks placed on it (run by the agent as its own account). The
 * address that does not answer is on a network the test creates: the bridge finds no neighbour for
 * it, so nothing leaves the machine.
 */
import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import type { Client } from '../../backend/src/testing/http.js';
import { waitFor } from '../../backend/src/testing/net.js';
import { docker } from './deployment.js';

export interface SystemRow {
  id: number;
  hostname: string;
  status: string;
}

/** The system the agent of `hostname` enrolled as, once it is ONLINE. */
export async function systemOf(knex: Knex, hostname: string, said: () => Promise<string>): Promise<SystemRow> {
  const find = () => knex('systems').where({ hostname, status: 'ONLINE' }).first() as Promise<SystemRow | undefined>;
  await waitFor(async () => (await find()) !== undefined, 60_000, 500).catch(async () => {
    throw new Error(`no system ${hostname} came ONLINE; the agent said:\n${await said()}`);
  });
  return (await find()) as SystemRow;
}

/** Reports stored for the system (one row each). */
export async function reportsOf(knex: Knex, systemId: number): Promise<number> {
  const row = await knex('metrics').where({ system_id: systemId }).count<{ count: string }[]>('* as count');
  return Number(row[0]?.count ?? 0);
}

/** A Docker network of the test's own, and an address of its subnet that nobody holds. */
export async function testNetwork(name: string): Promise<{ name: string; unheld: string }> {
  const created = await docker(['network', 'create', name]);
  assert.equal(created.code, 0, created.stderr);
  const subnet = (await docker(['network', 'inspect', name, '-f', '{{(index .IPAM.Config 0).Subnet}}'])).stdout.trim();
  const octets = (subnet.split('/')[0] ?? '').split('.');
  assert.equal(octets.length, 4, `an IPv4 subnet: ${subnet}`);
  // the gateway is .1 and nothing is attached: .250 answers nobody
  return { name, unheld: [...octets.slice(0, 3), '250'].join('.') };
}

interface CheckAnswer {
  state: string;
  lastResult: { up: boolean; reason: string | null; responseMs: number | null; packetLossPct: number | null } | null;
  results: unknown[];
}

/** Two ping checks run only by the agent of `system`; waits until both have left PENDING. */
export async function agentPingChecks(
  admin: Client,
  where: { customerId: number; system: SystemRow },
  targets: { up: string; down: string },
) {
  const { customerId, system } = where;
  const started = performance.now();
  const ids: Record<string, number> = {};
  for (const [role, host] of Object.entries(targets)) {
    const created = await admin.post('/api/checks', {
      customerId,
      name: `agent ping ${role}`,
      settings: { type: 'ping', host, count: 2 },
      ...{ intervalSeconds: 20, timeoutSeconds: 2, retries: 0, locations: [`system:${system.id}`] },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    ids[role] = created.body.id;
  }
  const answers: Record<string, CheckAnswer> = {};
  const seconds: Record<string, number> = {};
  await waitFor(
    async () => {
      for (const [role, id] of Object.entries(ids)) {
        answers[role] = (await admin.get(`/api/checks/${id}`)).body as CheckAnswer;
        if (answers[role]?.state !== 'PENDING') seconds[role] ??= (performance.now() - started) / 1000;
      }
      return Object.keys(seconds).length === 2;
    },
    90_000,
    1000,
  ).catch(() => {
    throw new Error(`the agent's ping checks did not settle: ${JSON.stringify(answers)}`);
  });
  return {
    up: answers['up'] as CheckAnswer,
    down: answers['down'] as CheckAnswer,
    seconds: seconds as { up: number; down: number },
  };
}
