/**
 * The ceiling of `bench ingest`: the same kind of rows (the simulator's
 * 60-sample reports) inserted straight into `metrics` with unnest and
 * ON CONFLICT DO NOTHING on a few connections, no HTTP, no validation, nothing
 * else written. What Argus reaches is compared with this.
 *
 * `statement: 'argus'` sends Argus's own group-commit statement instead (the
 * repo's storeBatch: samples, latest values, systems' last-seen, the stored
 * reports counted) with the same rows on the same connections, still without
 * HTTP: it splits Argus/ceiling into what the database statement costs and what
 * the app in front of it costs.
 */
import pg from 'pg';
import { createKnex } from '../../db/connection.js';
import { createIngestRepo, type BatchArrays } from '../../backend/src/ingest/repo.js';
import { createLogger } from '../../db/logger.js';
import { createCustomer } from '../../backend/src/testing/accounts.js';
import { SimulatedHost } from '../agent-sim/catalogue.js';

const INSERT = `
INSERT INTO metrics (time, system_id, name, instance, value)
SELECT to_timestamp(ms / 1000), system_id, name, instance, value
FROM unnest($1::int[], $2::text[], $3::text[], $4::float8[], $5::float8[]) AS r(system_id, name, instance, ms, value)
ON CONFLICT (system_id, name, instance, time) DO NOTHING`;

export interface CeilingOptions {
  seconds: number;
  connections: number;
  batchRows: number;
  systems: number;
  /** 'insert' (default): the plain unnest insert; 'argus': Argus's group-commit statement. */
  statement?: 'insert' | 'argus';
}

export async function measureCeiling(
  url: string,
  options: CeilingOptions,
): Promise<{ rows: number; rowsPerS: number }> {
  const hosts = Array.from({ length: options.systems }, (_, i) => new SimulatedHost(i + 1));
  const clock = new Map<number, number>();
  let nextSystem = 0;
  const base = Date.now() - 3_600_000;

  function batch(ids: number[]): BatchArrays {
    const arrays: BatchArrays = {
      metrics: { systemId: [], name: [], instance: [], ms: [], value: [], newest: [] },
      events: { systemId: [], ms: [], type: [], severity: [], message: [] },
      systems: { id: [], seenMs: [], version: [], hostname: [], os: [], kernel: [], arch: [], cores: [] },
      receivedAt: new Date(),
    };
    while (arrays.metrics.ms.length < options.batchRows) {
      const index = nextSystem++ % options.systems;
      const system = ids[index] as number;
      const ms = (clock.get(system) ?? base) + 1;
      clock.set(system, ms);
      for (const sample of (hosts[index] as SimulatedHost).sample(ms)) {
        arrays.metrics.systemId.push(system);
        arrays.metrics.name.push(sample.name);
        arrays.metrics.instance.push(sample.instance ?? '');
        arrays.metrics.ms.push(ms);
        arrays.metrics.value.push(sample.value);
        arrays.metrics.newest.push(true);
      }
      const s = arrays.systems;
      s.id.push(system);
      s.seenMs.push(Date.now());
      s.version.push('1.0.0');
      s.hostname.push(`host-${index}`);
      s.os.push('linux');
      s.kernel.push('6.1');
      s.arch.push('amd64');
      s.cores.push(2);
    }
    return arrays;
  }

  if (options.statement === 'argus') {
    // a batch holds each system once (batchRows ≤ systems × samples), as the bench's batches do
    const knex = createKnex({
      url,
      poolMax: options.connections,
      log: createLogger({ level: 'warn', name: 'ceiling' }),
    });
    try {
      const customerId = await createCustomer(knex, 'Ceiling');
      const inserted = await knex('systems')
        .insert(Array.from({ length: options.systems }, (_, i) => ({ customer_id: customerId, name: `c${i}` })))
        .returning<{ id: number }[]>('id');
      const ids = inserted.map((row) => row.id);
      const repo = createIngestRepo(knex);
      return await drive(async () => {
        const arrays = batch(ids);
        await repo.storeBatch(arrays);
        return arrays.metrics.ms.length;
      });
    } finally {
      await knex.destroy();
    }
  }

  const pool = new pg.Pool({ connectionString: url, max: options.connections });
  const ids = Array.from({ length: options.systems }, (_, i) => i + 1);
  try {
    return await drive(async () => {
      const m = batch(ids).metrics;
      await pool.query({ name: 'ceiling', text: INSERT, values: [m.systemId, m.name, m.instance, m.ms, m.value] });
      return m.ms.length;
    });
  } finally {
    await pool.end();
  }

  /** Warm-up (connections open, plans cached), then `connections` loops for `seconds`. */
  async function drive(send: () => Promise<number>): Promise<{ rows: number; rowsPerS: number }> {
    await Promise.all(Array.from({ length: options.connections }, () => send()));
    let rows = 0;
    const started = performance.now();
    const until = started + options.seconds * 1000;
    await Promise.all(
      Array.from({ length: options.connections }, async () => {
        while (performance.now() < until) {
          const sent = await send(); // not `rows += await send()`: that reads `rows` before the await
          rows += sent;
        }
      }),
    );
    return { rows, rowsPerS: rows / ((performance.now() - started) / 1000) };
  }
}
