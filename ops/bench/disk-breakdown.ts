/**
 * Where the bytes of `npm run bench -- disk --real` go, and what other rollup layouts would cost on
 * the same rows. `bytesByState`: per hypertable (raw and each rollup's materialisation) and chunk
 * state, the uncompressed chunks' heap, indexes and TOAST, and the compressed chunks' compressed rows
 * (heap and TOAST) and the indexes on them. `rollupAlternatives`: each rollup's rows copied into
 * tables of another shape, compressed with the same segments, measured per series and bucket.
 */
import type { Knex } from 'knex';

const MB = 1e6;

interface StateBytes {
  chunks: number;
  heap: number;
  indexes: number;
  toast: number;
}

/** One line per hypertable: its uncompressed and its compressed chunks, in MB. */
export async function bytesByState(knex: Knex, hypertables: { label: string; table: string }[]): Promise<string[]> {
  const lines: string[] = [];
  for (const { label, table } of hypertables) {
    const result = (await knex.raw(
      `WITH chunks AS (
         SELECT c1.compressed_chunk_id IS NOT NULL AS compressed,
                format('%I.%I', coalesce(c2.schema_name, c1.schema_name), coalesce(c2.table_name, c1.table_name))::regclass AS rel
           FROM _timescaledb_catalog.hypertable h
           JOIN _timescaledb_catalog.chunk c1 ON c1.hypertable_id = h.id
           LEFT JOIN _timescaledb_catalog.chunk c2 ON c2.id = c1.compressed_chunk_id
          WHERE format('%I.%I', h.schema_name, h.table_name)::regclass = ?::regclass)
       SELECT compressed, count(*)::int AS chunks, sum(pg_relation_size(rel))::bigint AS heap,
              sum(pg_indexes_size(rel))::bigint AS indexes,
              sum(pg_total_relation_size(rel) - pg_relation_size(rel) - pg_indexes_size(rel))::bigint AS toast
         FROM chunks GROUP BY compressed ORDER BY compressed`,
      [table],
    )) as { rows: ({ compressed: boolean } & Record<keyof StateBytes, string | number>)[] };
    const describe = (state: string, row: Record<keyof StateBytes, string | number> | undefined) =>
      row
        ? `${state} ${row.chunks} chunks: heap ${mb(row.heap)}, indexes ${mb(row.indexes)}, TOAST ${mb(row.toast)}`
        : `${state} none`;
    lines.push(
      `${label}: ${describe(
        'uncompressed',
        result.rows.find((r) => !r.compressed),
      )}; ` +
        describe(
          'compressed',
          result.rows.find((r) => r.compressed),
        ),
    );
  }
  return lines;
}

const mb = (bytes: string | number) => `${(Number(bytes) / MB).toFixed(1)} MB`;

interface Alternative {
  label: string;
  select(view: string): string;
  segmentBy: string;
  orderBy: string;
  /** Series-buckets the copy holds. */
  count: string;
  toast?: 'lz4';
}

const PER_SERIES = (view: string, columns: string) =>
  `SELECT bucket, system_id, set_id, k::smallint AS k, count::int AS count, ${columns}
     FROM ${view}, unnest(avgs, mins, maxs) WITH ORDINALITY AS u(a, lo, hi, k)`;

const ALTERNATIVES: Alternative[] = [
  {
    label: 'as stored (three arrays)',
    select: (v) => `SELECT bucket, system_id, set_id, count, avgs, mins, maxs FROM ${v}`,
    segmentBy: 'system_id, set_id',
    orderBy: 'bucket DESC',
    count: 'sum(cardinality(avgs))',
  },
  {
    label: 'the same, TOAST lz4',
    select: (v) => `SELECT bucket, system_id, set_id, count, avgs, mins, maxs FROM ${v}`,
    segmentBy: 'system_id, set_id',
    orderBy: 'bucket DESC',
    count: 'sum(cardinality(avgs))',
    toast: 'lz4',
  },
  {
    label: 'one array (avgs || mins || maxs)',
    select: (v) => `SELECT bucket, system_id, set_id, count, avgs || mins || maxs AS vals FROM ${v}`,
    segmentBy: 'system_id, set_id',
    orderBy: 'bucket DESC',
    count: 'sum(cardinality(vals)) / 3',
  },
  {
    label: 'a row per series (float4 columns: Gorilla), segment per series',
    select: (v) => PER_SERIES(v, 'a AS avg, lo AS min, hi AS max'),
    segmentBy: 'system_id, set_id, k',
    orderBy: 'bucket DESC',
    count: 'count(*)',
  },
  {
    label: 'a row per series, segment per set, ordered by series',
    select: (v) => PER_SERIES(v, 'a AS avg, lo AS min, hi AS max'),
    segmentBy: 'system_id, set_id',
    orderBy: 'k, bucket DESC',
    count: 'count(*)',
  },
  {
    label: 'averages only (one array)',
    select: (v) => `SELECT bucket, system_id, set_id, count, avgs FROM ${v}`,
    segmentBy: 'system_id, set_id',
    orderBy: 'bucket DESC',
    count: 'sum(cardinality(avgs))',
  },
  {
    label: 'minimums and maximums left out (NULL elements) where equal to the average',
    select: (v) =>
      `SELECT bucket, system_id, set_id, count, avgs,
              ARRAY(SELECT NULLIF(lo, a) FROM unnest(avgs, mins) WITH ORDINALITY AS u(a, lo, k) ORDER BY k) AS mins,
              ARRAY(SELECT NULLIF(hi, a) FROM unnest(avgs, maxs) WITH ORDINALITY AS u(a, hi, k) ORDER BY k) AS maxs
         FROM ${v}`,
    segmentBy: 'system_id, set_id',
    orderBy: 'bucket DESC',
    count: 'sum(cardinality(avgs))',
  },
  {
    label: 'averages rounded to 4 significant digits, with mins and maxs',
    select: (v) =>
      `SELECT bucket, system_id, set_id, count, ARRAY(SELECT CASE WHEN x = 0 THEN 0 ELSE
                round(x::numeric, 3 - floor(log(abs(x::numeric)))::int)::real END FROM unnest(avgs) x) AS avgs,
              mins, maxs FROM ${v}`,
    segmentBy: 'system_id, set_id',
    orderBy: 'bucket DESC',
    count: 'sum(cardinality(avgs))',
  },
];

/** Per rollup and layout: bytes per series and bucket uncompressed (table and indexes) and compressed (rows). */
export async function rollupAlternatives(knex: Knex): Promise<string[]> {
  const lines: string[] = [];
  for (const [view, chunk] of [
    ['metrics_5m', '1 day'],
    ['metrics_1h', '10 days'],
  ] as const) {
    for (const [n, alt] of ALTERNATIVES.entries()) {
      const table = `disk_alternative_${view}_${n}`;
      await knex.raw(`SET default_toast_compression = ${alt.toast ?? 'pglz'}`);
      await knex.raw(`CREATE TABLE ${table} AS ${alt.select(view)} ORDER BY system_id, bucket`);
      await knex.raw(
        `SELECT create_hypertable(?::regclass, 'bucket', chunk_time_interval => ?::interval, migrate_data => true)`,
        [table, chunk],
      );
      await knex.raw(`CREATE INDEX ON ${table} (system_id, bucket)`);
      await knex.raw(`VACUUM ANALYZE ${table}`);
      const plain = await perSeriesBucket(knex, table, alt.count, `hypertable_size('${table}')`);
      await knex.raw(
        `ALTER TABLE ${table} SET (timescaledb.compress, timescaledb.compress_segmentby = '${alt.segmentBy}',
                                   timescaledb.compress_orderby = '${alt.orderBy}')`,
      );
      await knex.raw(`SELECT compress_chunk(c) FROM show_chunks(?::regclass) c`, [table]);
      const packed = await perSeriesBucket(knex, table, alt.count, compressedRowsBytes(table));
      lines.push(`${view}, ${alt.label}: ${plain.toFixed(1)} B uncompressed, ${packed.toFixed(2)} B compressed`);
      await knex.raw(`DROP TABLE ${table}`);
    }
  }
  await knex.raw('RESET default_toast_compression');
  return lines;
}

async function perSeriesBucket(knex: Knex, table: string, count: string, bytes: string): Promise<number> {
  const result = (await knex.raw(`SELECT (SELECT ${count} FROM ${table}) AS n, (${bytes}) AS bytes`)) as {
    rows: { n: string; bytes: string }[];
  };
  const row = result.rows[0];
  return Number(row?.bytes) / Number(row?.n);
}

/** A hypertable's compressed rows: the compressed chunks' heap and TOAST. */
export function compressedRowsBytes(table: string): string {
  return `SELECT sum(pg_relation_size(cc.oid) + coalesce(pg_relation_size(NULLIF(cc.reltoastrelid, 0)), 0))
            FROM _timescaledb_catalog.hypertable h
            JOIN _timescaledb_catalog.chunk c1 ON c1.hypertable_id = h.id
            JOIN _timescaledb_catalog.chunk c2 ON c2.id = c1.compressed_chunk_id
            JOIN pg_class cc ON cc.oid = format('%I.%I', c2.schema_name, c2.table_name)::regclass
           WHERE format('%I.%I', h.schema_name, h.table_name)::regclass = '${table}'::regclass`;
}
