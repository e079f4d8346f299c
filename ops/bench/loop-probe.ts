/**
 * Loaded into a benchmarked server with `--import` (ops/bench/argus-server.ts): writes the
 * cumulative event-loop utilisation (active and idle ms since start) to BENCH_LOOP_FILE once a
 * second, so a bench can tell how busy the server's one JavaScript thread was in each phase.
 * One small file write a second; the timer does not keep the process alive.
 */
import cluster from 'node:cluster';
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const base = process.env['BENCH_LOOP_FILE'];
// a node:cluster worker writes a file of its own (FILE.id): the bench sums the workers' figures
const file = base && cluster.isWorker ? `${base}.${cluster.worker?.id}` : base;
if (file) {
  setInterval(() => {
    const { active, idle } = performance.eventLoopUtilization();
    writeFileSync(file, JSON.stringify({ active, idle }));
  }, 1000).unref();
}
