/**
 * The ceiling of `bench ingest`: the same kind of rows (the simulator's
 * 60-sample reports) inserted straight into `metrics` with unnest and
 * ON CONFLICT DO NOTHING on a few connections, no HTTP, no validation, nothing
 * else written. What Argus reaches is compared with this.
 */
import pg from 'pg';
import { SimulatedHost } from '../agent-sim/catalogue.js';

const INSERT = `
INSERT INTO metrics (time, system_id, name, instance, value)
SELECT to_timestamp(ms / 1000), system_id, name, instance, value
FROM unnest($1::int[], $2::text[], $3::text[], $4::float8[], $5::float8[]) AS r(system_id, name, instance, ms, value)
ON CONFLICT (system_id, name, instance, time) DO NOTHING`;

export async function measureCeiling(
  url: string,
  options: { seconds: number; connections: number; batchRows: number; systems: number },
): Promise<{ rows: number; rowsPerS: number }> {
  const hosts = Array.from({ length: options.systems }, (_, i) => new SimulatedHost(i + 1));
  const clock = new Map<number, number>();
  let nextSystem = 0;
  const base = Date.now() - 3_600_000;

  function batch() {
    const arrays = {
      systemId: [] as number[],
      name: [] as string[],
      instance: [] as string[],
      ms: [] as number[],
      value: [] as number[],
    };
    while (arrays.ms.length < options.batchRows) {
      const system = (nextSystem++ % options.systems) + 1;
      const ms = (clock.get(system) ?? base) + 1;
      clock.set(system, ms);
      for (const sample of (hosts[system - 1] as SimulatedHost).sample(ms)) {
        arrays.systemId.push(system);
        arrays.name.push(sample.name);
        arrays.instance.push(sample.instance ?? '');
        arrays.ms.push(ms);
        arrays.value.push(sample.value);
      }
    }
    return [arrays.systemId, arrays.name, arrays.instance, arrays.ms, arrays.value];
  }

  const pool = new pg.Pool({ connectionString: url, max: options.connections });
  let rows = 0;
  try {
    // warm-up: connections open, plan cached
    await Promise.all(
      Array.from({ length: options.connections }, () => pool.query({ name: 'ceiling', text: INSERT, values: batch() })),
    );
    const started = performance.now();
    const until = started + options.seconds * 1000;
    await Promise.all(
      Array.from({ length: options.connections }, async () => {
        const client = await pool.connect();
        try {
          while (performance.now() < until) {
            const values = batch();
            await client.query({ name: 'ceiling', text: INSERT, values });
            rows += (values[0] as number[]).length;
          }
        } finally {
          client.release();
        }
      }),
    );
    return { rows, rowsPerS: rows / ((performance.now() - started) / 1000) };
  } finally {
    await pool.end();
  }
}
