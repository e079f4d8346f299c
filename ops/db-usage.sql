-- Argus database usage report (read-only): whether metrics is a hypertable, its chunks, compression
-- ratio, TimescaleDB policies with their next run, rollups, and the 20 largest relations.
-- Works on plain PostgreSQL (the TimescaleDB parts are skipped) and on TimescaleDB.
--   docker compose -p argus -f docker-compose.prod.yml exec -T database \
--     psql -X -U argus -d argus < ops/db-usage.sql
--   psql -X "$DATABASE_URL" -f ops/db-usage.sql
\set ON_ERROR_STOP on
\pset footer off
-- everything below runs in a read-only transaction: the report cannot change anything
\set QUIET on
BEGIN TRANSACTION READ ONLY;
\set QUIET off

\echo '== database'
SELECT current_database() AS database,
       pg_size_pretty(pg_database_size(current_database())) AS size,
       version() AS server;

SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'timescaledb') AS has_timescaledb,
       to_regclass('metrics') IS NOT NULL AS has_metrics
\gset
\if :has_timescaledb
  SELECT EXISTS (SELECT 1 FROM timescaledb_information.hypertables
                  WHERE hypertable_name = 'metrics'
                    AND hypertable_schema = current_schema()) AS metrics_is_hypertable
  \gset
\else
  \set metrics_is_hypertable false
\endif

\echo '== metrics'
\if :has_metrics
  SELECT CASE WHEN :'metrics_is_hypertable'::boolean THEN 'hypertable' ELSE 'plain table' END AS metrics,
         coalesce((SELECT extversion FROM pg_extension WHERE extname = 'timescaledb'), 'not installed') AS timescaledb;
\else
  \echo 'no metrics table in this database (is this the Argus database?)'
\endif

\if :metrics_is_hypertable
  \echo '== hypertable size (table, indexes, chunks)'
  SELECT pg_size_pretty(table_bytes) AS table_size, pg_size_pretty(index_bytes) AS index_size,
         pg_size_pretty(toast_bytes) AS toast_size, pg_size_pretty(total_bytes) AS total_size
    FROM hypertable_detailed_size('metrics');

  \echo '== chunks'
  SELECT count(*) AS chunks,
         count(*) FILTER (WHERE is_compressed) AS compressed,
         min(range_start) AS oldest_from,
         max(range_end) AS newest_to
    FROM timescaledb_information.chunks
   WHERE hypertable_name = 'metrics' AND hypertable_schema = current_schema();

  \echo '== compression'
  SELECT number_compressed_chunks AS compressed_chunks,
         pg_size_pretty(before_compression_total_bytes) AS before,
         pg_size_pretty(after_compression_total_bytes) AS after,
         CASE WHEN after_compression_total_bytes > 0
              THEN round(before_compression_total_bytes::numeric / after_compression_total_bytes, 1)
         END AS ratio
    FROM hypertable_compression_stats('metrics');
\elif :has_metrics
  \echo '== plain metrics table'
  SELECT pg_size_pretty(pg_relation_size('metrics')) AS table_size,
         pg_size_pretty(pg_indexes_size('metrics')) AS index_size,
         pg_size_pretty(pg_total_relation_size('metrics')) AS total_size,
         (SELECT nullif(reltuples, -1)::bigint FROM pg_class WHERE oid = 'metrics'::regclass) AS rows_estimate;
  SELECT indexrelid::regclass AS index, pg_size_pretty(pg_relation_size(indexrelid)) AS size
    FROM pg_index WHERE indrelid = 'metrics'::regclass ORDER BY pg_relation_size(indexrelid) DESC;
\endif
SELECT to_regclass('metric_series_sets') IS NOT NULL AS has_series_sets,
       to_regclass('metrics_legacy') IS NOT NULL AS has_legacy
\gset
\if :has_series_sets
  \echo '== series sets (metrics holds one row per report: its series set and its values)'
  SELECT count(*) AS series_sets, max(cardinality(names)) AS most_series,
         round(avg(cardinality(names)), 1) AS average_series
    FROM metric_series_sets;
\endif
\if :has_legacy
  \echo '== metrics_legacy (per-sample rows of before one row per report, read by the charts;'
  \echo '   dropped at a start-up once its retention has emptied it and its rollups)'
  SELECT pg_size_pretty(CASE WHEN :'has_timescaledb'::boolean AND EXISTS (
                               SELECT 1 FROM timescaledb_information.hypertables WHERE hypertable_name = 'metrics_legacy')
                             THEN hypertable_size(to_regclass('metrics_legacy'))
                             ELSE pg_total_relation_size(to_regclass('metrics_legacy')) END) AS total_size;
\endif

\if :metrics_is_hypertable
\elif :has_timescaledb
  \echo 'metrics is not a hypertable: no chunks, compression or retention (see the app log at start,'
  \echo 'METRICS_MAX_MIGRATE_BYTES, and README "Production" on emergency reclaim)'
\else
  \echo 'TimescaleDB is not installed: no hypertable, compression, rollups or policies'
\endif

\if :has_timescaledb
  \echo '== rollups'
  SELECT view_name, materialized_only,
         pg_size_pretty(hypertable_size(format('%I.%I', materialization_hypertable_schema,
                                               materialization_hypertable_name)::regclass)) AS size
    FROM timescaledb_information.continuous_aggregates
   WHERE view_schema = current_schema()
   ORDER BY view_name;

  \echo '== policies (next run, last result)'
  SELECT j.job_id, j.proc_name AS policy, j.hypertable_name AS target, j.schedule_interval,
         j.config, j.scheduled, s.last_run_status, s.last_run_started_at, s.next_start
    FROM timescaledb_information.jobs j
    LEFT JOIN timescaledb_information.job_stats s USING (job_id)
   WHERE j.proc_schema = '_timescaledb_functions' OR j.proc_name LIKE 'policy_%'
   ORDER BY j.hypertable_name, j.proc_name;
\endif

\echo '== 20 largest relations (tables with their indexes and TOAST, materialized views)'
SELECT n.nspname AS schema, c.relname AS relation,
       CASE c.relkind WHEN 'r' THEN 'table' WHEN 'm' THEN 'materialized view'
                      WHEN 'p' THEN 'partitioned table' END AS kind,
       pg_size_pretty(pg_total_relation_size(c.oid)) AS total,
       pg_size_pretty(pg_indexes_size(c.oid)) AS indexes,
       nullif(c.reltuples, -1)::bigint AS rows_estimate
  FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE c.relkind IN ('r', 'm', 'p')
   AND n.nspname NOT IN ('pg_catalog', 'information_schema')
 ORDER BY pg_total_relation_size(c.oid) DESC
 LIMIT 20;

\set QUIET on
ROLLBACK;
