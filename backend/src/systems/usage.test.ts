/**
 * The systems list's figures at a glance: CPU, memory and the fullest disk from each system's row of
 * newest values, in every list answer, and sorted on the server with keyset pages.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { System, SystemsPage } from '../../../contracts/systems.js';
import { createCustomer } from '../testing/accounts.js';
import { useTestServer } from '../testing/app.js';
import { signedInAs, type Client } from '../testing/http.js';

const NOW = Date.parse('2026-11-28T12:00:00.000Z');
const MINUTE = 60_000;

describe('the systems list: CPU, memory and the fullest disk', () => {
  const t = useTestServer();
  let admin: Client;
  const ids: Record<string, number> = {};

  async function addSystem(name: string, customerId: number): Promise<number> {
    const [row] = await t.db
      .knex('systems')
      .insert({ customer_id: customerId, name, hostname: `${name}.example`, status: 'ONLINE' })
      .returning<{ id: number }[]>('id');
    return row!.id;
  }

  async function report(systemId: number, samples: [string, string, number, number][]): Promise<void> {
    await t.db.knex('metric_latest').insert(
      samples.map(([name, instance, value, at]) => ({
        system_id: systemId,
        name,
        instance,
        value,
        time: new Date(at),
      })),
    );
  }

  before(async () => {
    admin = await signedInAs(t.server.url, t.db.knex, 'ADMIN');
    const acme = await createCustomer(t.db.knex, 'Acme');
    for (const name of ['busy', 'calm', 'full', 'silent', 'quiet']) ids[name] = await addSystem(name, acme);
    await report(ids['busy']!, [
      ['cpu.usage_pct', '', 91.5, NOW],
      ['cpu.iowait_pct', '', 40, NOW],
      ['mem.used_pct', '', 30, NOW],
      ['disk.used_pct', '/', 20, NOW],
      ['disk.used_pct', '/srv', 55, NOW],
    ]);
    await report(ids['calm']!, [
      ['cpu.usage_pct', '', 3, NOW],
      ['mem.used_pct', '', 80.25, NOW],
      ['disk.used_pct', '/', 10, NOW],
      // unmounted an hour ago: its last value stays in the row but is not current
      ['disk.used_pct', '/mnt/old', 99, NOW - 60 * MINUTE],
    ]);
    await report(ids['full']!, [
      ['cpu.usage_pct', '', 50, NOW - 2 * MINUTE],
      ['mem.used_pct', '', 50, NOW - 2 * MINUTE],
      ['disk.used_pct', '/', 97, NOW - 2 * MINUTE],
    ]);
    // silent: never reported; quiet: an agent without the memory and disk collectors
    await report(ids['quiet']!, [['cpu.usage_pct', '', 0, NOW]]);
  });

  async function page(query: string): Promise<SystemsPage> {
    const reply = await admin.get(`/api/systems/page?${query}`);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return reply.body as SystemsPage;
  }

  const usageOf = (systems: System[], name: string) => systems.find((system) => system.name === name)?.usage;

  it('answers each system figures from its newest values, the fullest current disk with its mount', async () => {
    const { items } = await page('limit=10');
    assert.deepEqual(usageOf(items, 'busy'), { cpu: 91.5, memory: 30, disk: 55, diskMount: '/srv' });
    assert.deepEqual(usageOf(items, 'calm'), { cpu: 3, memory: 80.25, disk: 10, diskMount: '/' });
    assert.deepEqual(usageOf(items, 'full'), { cpu: 50, memory: 50, disk: 97, diskMount: '/' });
    assert.deepEqual(usageOf(items, 'silent'), { cpu: null, memory: null, disk: null, diskMount: null });
    assert.deepEqual(usageOf(items, 'quiet'), { cpu: 0, memory: null, disk: null, diskMount: null });
  });

  it('answers the same figures in the whole list (the live snapshot) and a system alone', async () => {
    const whole = await admin.get('/api/systems');
    assert.equal(whole.status, 200);
    assert.deepEqual(usageOf(whole.body as System[], 'busy'), { cpu: 91.5, memory: 30, disk: 55, diskMount: '/srv' });
    const one = await admin.get(`/api/systems/${ids['calm']}`);
    assert.equal(one.status, 200);
    assert.deepEqual((one.body as System).usage, { cpu: 3, memory: 80.25, disk: 10, diskMount: '/' });
  });

  it('sorts by each figure on the server, systems without it last when the fullest come first (ties by name)', async () => {
    const names = async (query: string) => (await page(query)).items.map((system) => system.name);
    assert.deepEqual(await names('sort=cpu&order=desc'), ['busy', 'full', 'calm', 'quiet', 'silent']);
    assert.deepEqual(await names('sort=memory&order=desc'), ['calm', 'full', 'busy', 'silent', 'quiet']);
    assert.deepEqual(await names('sort=disk&order=desc'), ['full', 'busy', 'calm', 'silent', 'quiet']);
    assert.deepEqual(await names('sort=disk&order=asc'), ['quiet', 'silent', 'calm', 'busy', 'full']);
    const unknown = await admin.get('/api/systems/page?sort=swap');
    assert.equal(unknown.status, 400);
    assert.match(JSON.stringify(unknown.body), /sort/);
  });

  it('pages a figure order with cursors, no system twice or missed', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const body: SystemsPage = await page(`sort=cpu&order=desc&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...body.items.map((system) => system.name));
      cursor = body.nextCursor;
    } while (cursor);
    assert.deepEqual(seen, ['busy', 'full', 'calm', 'quiet', 'silent']);
  });
});
