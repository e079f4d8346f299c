/**
 * `npm run bench -- status-page [--systems 500] [--pages 10] [--hits 1000]`: the public status page
 * of one customer with `--systems` systems in 10 clusters and 90 days of alerts
 * (about one outage per system every 9 days). Prints the first, uncached answer of `--pages` pages
 * (each listing the 10 clusters and 20 systems: 90 daily bars each), and `--hits` requests at once
 * for one page from as many client addresses (so the per-address limit does not answer them): the
 * 30 s cache computes that page once. Against the test server over HTTP, which also checks each
 * answer against the OpenAPI document. Prints figures; passes or fails nothing.
 */
import { performance } from 'node:perf_hooks';
import os from 'node:os';
import { createAccount } from '../../backend/src/testing/accounts.js';
import { startTestServer, testConfig } from '../../backend/src/testing/app.js';
import { createTestDatabase } from '../../backend/src/testing/database.js';
import { Client } from '../../backend/src/testing/http.js';
import { option, summary } from './overview.js';

export async function benchStatusPage(args: string[]): Promise<void> {
  const systems = option(args, 'systems', 500);
  const pages = option(args, 'pages', 10);
  const hits = option(args, 'hits', 1000);
  const db = await createTestDatabase();
  const server = await startTestServer(testConfig(db.url));
  try {
    const knex = db.knex;
    await knex.raw(`INSERT INTO customers (name, time_zone) VALUES ('Bench status', 'Europe/Berlin')`);
    await knex.raw(
      `INSERT INTO clusters (customer_id, name, enrollment_key)
       SELECT 1, 'cluster-' || n, 'bench-status-key-' || lpad(n::text, 20, '0') FROM generate_series(1, 10) n`,
    );
    await knex.raw(
      `INSERT INTO systems (customer_id, cluster_id, name, hostname, status, created_at)
       SELECT 1, 1 + n % 10, 'host-' || n, 'host-' || n || '.example.net',
              (ARRAY['ONLINE','ONLINE','ONLINE','WARNING','OFFLINE'])[1 + n % 5], now() - interval '120 days'
         FROM generate_series(1, ?) n`,
      [systems],
    );
    await knex.raw(
      `INSERT INTO alerts (rule_key, rule_kind, system_id, customer_id, severity, state, started_at, resolved_at)
       SELECT 'system.offline', 'offline', s.id, 1, 'CRITICAL', 'resolved',
              now() - make_interval(days => k * 9, mins => s.id % 600),
              now() - make_interval(days => k * 9, mins => s.id % 600) + make_interval(mins => 5 + s.id % 120)
         FROM systems s, generate_series(1, 10) k`,
    );
    await knex.raw(`VACUUM ANALYZE systems, alerts`);
    const admin = await createAccount(knex, { role: 'ADMIN' });
    const browser = new Client(server.url);
    await browser.signIn(admin.email, admin.password);
    const clusterItems = Array.from({ length: 10 }, (_, i) => ({ clusterId: i + 1, displayName: `Service ${i + 1}` }));
    const systemItems = Array.from({ length: 20 }, (_, i) => ({ systemId: i + 1, displayName: `Host ${i + 1}` }));
    const slugs: string[] = [];
    for (let i = 0; i < pages; i++) {
      const reply = await browser.post('/api/status-pages', {
        customerId: 1,
        title: `Bench ${i}`,
        items: [...clusterItems, ...systemItems],
      });
      slugs.push(reply.body.slug as string);
    }
    const visitor = new Client(server.url);
    const first: number[] = [];
    for (const [i, slug] of slugs.entries()) {
      const t0 = performance.now();
      const reply = await visitor.get(`/status/${slug}`, { 'x-forwarded-for': `198.51.100.${i + 1}` });
      first.push(performance.now() - t0);
      if (reply.status !== 200) throw new Error(`status page answered ${reply.status}`);
    }
    console.log(
      `status page: ${systems} systems, 30 entries, ${(await knex('alerts').count({ n: '*' }))[0]?.n} alerts; ` +
        `load average ${os
          .loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}`,
    );
    summary('status page, first (uncached) answer', first);

    const target = slugs[0] as string;
    const t0 = performance.now();
    const replies = await Promise.all(
      Array.from({ length: hits }, (_, i) =>
        fetch(`${server.url}/status/${target}`, {
          headers: { 'x-forwarded-for': `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}` },
        }),
      ),
    );
    const elapsed = performance.now() - t0;
    const ok = replies.filter((r) => r.status === 200).length;
    await Promise.all(replies.map((r) => r.arrayBuffer()));
    console.log(`status page, ${hits} requests at once (cached): ${ok} answered 200 in ${elapsed.toFixed(0)} ms`);
    // the same number of the cheapest answer there is, for scale on this machine
    const h0 = performance.now();
    const health = await Promise.all(
      Array.from({ length: hits }, () => fetch(`${server.url}/api/openapi.json`, { method: 'HEAD' })),
    );
    console.log(
      `for scale, ${hits} HEAD /api/openapi.json at once: ${(performance.now() - h0).toFixed(0)} ms (${health.length})`,
    );
    const size = (
      await fetch(`${server.url}/status/${target}`, {
        headers: { 'accept-encoding': 'identity', 'x-forwarded-for': '192.0.2.1' },
      })
    ).headers.get('content-length');
    const zipped = replies[0]?.headers.get('content-length');
    console.log(`status page size: ${size} bytes, gzipped ${zipped} bytes`);
  } finally {
    await server.stop();
    await db.drop();
  }
}
