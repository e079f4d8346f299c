/**
 * The ceiling of `bench ingest`: the same kind of rows (the simulator's
 * 60-sample reports) inserted straight into `metrics`, one row per report, with
 * unnest and ON CONFLICT DO NOTHING on a few connections, no HTTP, no
 * validation, nothing else written. What Argus reaches is compared with this.
 *
 * `statement: 'argus'` sends Argus's own group-commit statement instead (the
 * repo's storeBatch: samples, latest values, systems' last-seen, the stored
 * reports counted) with the same rows on the same connections, still without
 * HTTP: it splits Argus/ceiling into what the database statement costs and what
 * the app in front of it costs.
 *
 * Each connection writes its own share of the systems (index mod connections),
 * as the server's lanes do: two statements never touch the same `systems` or
 * `system_latest` rows, so they cannot deadlock on them (with shared systems,
 * 4 connections updating the same rows in different orders did).
 *
 * A runner keeps its database, connections and per-system clocks between
 * phases, so the bench can alternate it with the server's phases.
 */
import os from 'node:os';
import pg from 'pg';
import { createKnex } from '../../db/connection.js';
import { createIngestRepo, emptyBatchArrays, type BatchArrays } from '../../backend/src/ingest/repo.js';
import { createSeriesSets, type SeriesSet } from '../../backend/src/ingest/series-sets.js';
import { createLogger } from '../../db/logger.js';
import { createCustomer } from '../../backend/src/testing/accounts.js';
import { SimulatedHost } from '../agent-sim/catalogue.js';
import type { TestDatabase } from '../../backend/src/testing/database.js';
import { backendCpu, backendCpuSince } from './argus-server.js';

// one row per report: its series set and its values, a slice of the batch's values
const INSERT = `
INSERT INTO metrics (time, system_id, set_id, vals)
SELECT to_timestamp(r.ms / 1000), r.system_id, r.set_id, ($5::float8[])[r.first : r.first + r.n - 1]::real[]
FROM unnest($1::int[], $2::float8[], $3::int[], $4::int[], $6::int[]) AS r(system_id, ms, set_id, first, n)
ON CONFLICT (system_id, time) DO NOTHING`;

export interface CeilingOptions {
  connections: number;
  systems: number;
  /** 'insert' (default): the plain unnest insert; 'argus': Argus's group-commit statement. */
  statement?: 'insert' | 'argus';
}

export interface CeilingRunner {
  /** Sends batches of about `batchRows` samples on every connection for `seconds`. */
  run(seconds: number, batchRows: number): Promise<{ rows: number; rowsPerS: number }>;
  close(): Promise<void>;
}

export async function openCeiling(url: string, options: CeilingOptions): Promise<CeilingRunner> {
  const hosts = Array.from({ length: options.systems }, (_, i) => new SimulatedHost(i + 1));
  const clock = new Map<number, number>();
  const base = Date.now() - 3_600_000;
  // connection c writes the systems whose index mod connections is c
  const nextOf = Array.from({ length: options.connections }, (_, c) => c);
  const seriesSets = createSeriesSets();

  function batch(ids: number[], connection: number, batchRows: number): BatchArrays {
    const arrays: BatchArrays = emptyBatchArrays(new Date());
    const inBatch = new Set<number>();
    while (arrays.values.length < batchRows) {
      const index = (nextOf[connection] as number) % options.systems;
      nextOf[connection] = (nextOf[connection] as number) + options.connections;
      const system = ids[index] as number;
      // a batch holds a system once, as the server's batches do (one report per agent in flight)
      if (inBatch.has(system)) break;
      inBatch.add(system);
      const ms = (clock.get(system) ?? base) + 1;
      clock.set(system, ms);
      arrays.reports.systemId.push(system);
      arrays.reports.ms.push(ms);
      const { set, values } = seriesSets.pack(system, (hosts[index] as SimulatedHost).sample(ms));
      arrays.reports.sets.push(set);
      for (const value of values) arrays.values.push(value);
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

  /** Warm-up (connections open, plans cached), then `connections` loops for `seconds`. */
  async function drive(
    send: (connection: number) => Promise<number>,
    seconds: number,
  ): Promise<{ rows: number; rowsPerS: number }> {
    await Promise.all(Array.from({ length: options.connections }, (_, c) => send(c)));
    let rows = 0;
    const started = performance.now();
    const until = started + seconds * 1000;
    await Promise.all(
      Array.from({ length: options.connections }, async (_, c) => {
        while (performance.now() < until) {
          const sent = await send(c); // not `rows += await send()`: that reads `rows` before the await
          rows += sent;
        }
      }),
    );
    return { rows, rowsPerS: rows / ((performance.now() - started) / 1000) };
  }

  if (options.statement === 'argus') {
    const knex = createKnex({
      url,
      poolMax: options.connections,
      log: createLogger({ level: 'warn', name: 'ceiling' }),
    });
    const customerId = await createCustomer(knex, 'Ceiling');
    const inserted = await knex('systems')
      .insert(Array.from({ length: options.systems }, (_, i) => ({ customer_id: customerId, name: `c${i}` })))
      .returning<{ id: number }[]>('id');
    const ids = inserted.map((row) => row.id);
    const repo = createIngestRepo(knex);
    return {
      run: (seconds, batchRows) =>
        drive(async (c) => {
          const arrays = batch(ids, c, batchRows);
          await repo.storeBatch(arrays);
          return arrays.values.length;
        }, seconds),
      close: () => knex.destroy(),
    };
  }

  const pool = new pg.Pool({ connectionString: url, max: options.connections });
  const ids = Array.from({ length: options.systems }, (_, i) => i + 1);
  const setOf = async (set: SeriesSet): Promise<number> => {
    if (set.id === undefined) {
      const found = await pool.query<{ id: number }>('SELECT metric_series_set_id($1, $2) AS id', [
        set.names,
        set.instances,
      ]);
      set.id = found.rows[0]?.id as number;
    }
    return set.id;
  };
  return {
    run: (seconds, batchRows) =>
      drive(async (c) => {
        const { reports, values } = batch(ids, c, batchRows);
        const first: number[] = [];
        const n: number[] = [];
        const setIds: number[] = [];
        let at = 0;
        for (const set of reports.sets) {
          first.push(at + 1);
          n.push(set.names.length);
          at += set.names.length;
          setIds.push(await setOf(set));
        }
        await pool.query({
          name: 'ceiling',
          text: INSERT,
          values: [reports.systemId, reports.ms, setIds, first, values, n],
        });
        return values.length;
      }, seconds),
    close: () => pool.end(),
  };
}

/** What the ceiling did in one phase: samples a second, and CPU a report's worth of samples (ms). */
export interface CeilingResult {
  rowsPerS: number;
  /** The ceiling's PostgreSQL backends and the bench (no server: 0). */
  cpu: { server: number; postgres: number; bench: number };
}

/** One phase of `runner`, printed: `bench ingest`'s ceiling and Argus's statement alone. */
export async function ceilingPhase(
  name: string,
  runner: CeilingRunner,
  database: TestDatabase,
  admin: pg.Client,
  seconds: number,
  batchRows: number,
  samplesPerReport: number,
): Promise<CeilingResult> {
  const before = await backendCpu(admin, database.name);
  const benchCpu = process.cpuUsage();
  const started = performance.now();
  const { rowsPerS } = await runner.run(seconds, batchRows);
  const wall = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(benchCpu);
  const db = backendCpuSince(before, await backendCpu(admin, database.name));
  console.log(
    `${name}: ${rowsPerS.toLocaleString('en-US', { maximumFractionDigits: 0 })} samples/s (${batchRows.toLocaleString('en-US')} rows a statement); PostgreSQL ${(db / wall).toFixed(2)} cores, ` +
      `bench ${((cpu.user + cpu.system) / 1e6 / wall).toFixed(2)} cores; load ${os.loadavg()[0]?.toFixed(1) ?? '?'}`,
  );
  const perReport = (cores: number) => (cores * 1000 * samplesPerReport) / Math.max(1e-9, rowsPerS);
  return {
    rowsPerS,
    cpu: { server: 0, postgres: perReport(db / wall), bench: perReport((cpu.user + cpu.system) / 1e6 / wall) },
  };
}
