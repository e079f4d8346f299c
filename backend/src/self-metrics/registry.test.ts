/**
 * The registry alone: a scrape still answers when the database does not (the outbox gauge is then
 * absent rather than a false 0), and the events features report land in the right series.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createKnex } from '../../../db/connection.js';
import { captureLogger } from '../testing/logger.js';
import { freePort } from '../testing/net.js';
import { Exposition } from '../testing/prometheus-text.js';
import { createSelfMetrics } from './registry.js';

describe('self-metrics registry', () => {
  it('answers a scrape while the database is unreachable, without an outbox figure', async () => {
    // a port nobody listens on: every connection is refused at once
    const db = createKnex({ url: `postgres://postgres@127.0.0.1:${await freePort()}/argus`, poolMax: 2 });
    const logs = captureLogger();
    try {
      const metrics = createSelfMetrics({ db, log: logs.log });
      const m = await Exposition.parse(await metrics.scrape());
      assert.equal(m.type('argus_outbox_pending'), 'gauge');
      assert.deepEqual(m.samples('argus_outbox_pending'), []);
      assert.equal(m.value('argus_db_pool_max'), 2);
      assert.equal(m.value('argus_db_pool_used'), 0);
      assert.ok(logs.messages().includes('Self-metrics: could not count the outboxes'));
    } finally {
      await db.destroy();
    }
  });

  it('counts what features report, each outcome named from the start', async () => {
    const db = createKnex({ url: `postgres://postgres@127.0.0.1:${await freePort()}/argus` });
    try {
      const metrics = createSelfMetrics({ db, log: captureLogger().log });
      const before = await Exposition.parse(await metrics.scrape());
      for (const outcome of ['accepted', 'duplicate', 'skipped', 'refused'])
        assert.equal(before.value('argus_ingest_reports_total', { outcome }), 0, outcome);
      assert.equal(before.value('argus_evaluation_runs_total', { outcome: 'failed' }), 0);

      metrics.evaluation.run('failed', 0.2, { raised: 0, resolved: 0 });
      metrics.evaluation.run('succeeded', 0.05, { raised: 3, resolved: 1 });
      metrics.live.socketOpened();
      metrics.live.socketOpened();
      metrics.live.socketClosed();
      metrics.httpRequest('GET', '/api/systems/:id', 200, 0.003);
      const m = await Exposition.parse(await metrics.scrape());
      assert.equal(m.value('argus_evaluation_runs_total', { outcome: 'failed' }), 1);
      assert.equal(m.value('argus_evaluation_runs_total', { outcome: 'succeeded' }), 1);
      const runs = m.histogram('argus_evaluation_run_duration_seconds');
      assert.deepEqual([runs?.count, runs?.buckets['0.05'], runs?.buckets['0.25']], [2, 1, 2]);
      assert.equal(m.value('argus_alerts_raised_total'), 3);
      assert.equal(m.value('argus_alerts_resolved_total'), 1);
      assert.equal(m.value('argus_live_sockets'), 1);
      const http = m.histogram('argus_http_request_duration_seconds', { route: '/api/systems/:id' });
      assert.deepEqual([http?.labels['method'], http?.buckets['0.005'], http?.count], ['GET', 1, 1]);
    } finally {
      await db.destroy();
    }
  });
});
