/**
 * The ingest bench's CPU figures: the median over the phases, and where the CPU of a stored report goes.
 */
import os from 'node:os';
import { fmt, median } from './statistics.js';

export interface CpuPerReport {
  server: number;
  postgres: number;
  bench: number;
  /** The server's main thread alone (Argus phases only). */
  serverMain?: number;
}

const sum = (cpu: CpuPerReport) => cpu.server + cpu.postgres + cpu.bench;
export const medianCpu = (list: CpuPerReport[]): CpuPerReport => ({
  server: median(list.map((c) => c.server)),
  postgres: median(list.map((c) => c.postgres)),
  bench: median(list.map((c) => c.bench)),
  serverMain: median(list.map((c) => c.serverMain ?? 0)),
});

/**
 * Where the CPU of a report goes, Argus saturated against the ceiling. Both saturate the same cores,
 * so Argus/ceiling is about the ceiling's CPU a report over Argus's: the bound printed.
 */
export function cpuAccount(label: string, argus: CpuPerReport, ceiling: CpuPerReport): string {
  const f = (n: number) => n.toFixed(2);
  return (
    `  ${label} CPU a report (ms): server ${f(argus.server)} (main thread ${f(argus.serverMain ?? 0)}), PostgreSQL ${f(argus.postgres)}, bench ${f(argus.bench)}, ` +
    `total ${f(sum(argus))}; the ceiling's: PostgreSQL ${f(ceiling.postgres)}, bench ${f(ceiling.bench)}, total ` +
    `${f(sum(ceiling))}; on ${os.cpus().length} cores that CPU alone bounds Argus at ` +
    `${fmt((os.cpus().length * 1000) / sum(argus))} reports/s and Argus/ceiling at ${f(sum(ceiling) / sum(argus))}`
  );
}
