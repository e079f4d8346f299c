/**
 * The peer of `bench ingest`: Prometheus's remote-write receiver (Debian's `prometheus` package,
 * `--web.enable-remote-write-receiver`), started on loopback with its data in a temporary directory
 * and stopped after, fed the same 60-sample reports as Argus (the simulator's hosts), one report a
 * request (protobuf WriteRequest, snappy), by as many senders as Argus has agents. What a report
 * costs it (its process's CPU, all threads) is set beside what it costs Argus.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { compressSync } from 'snappy';
import { post } from '../../agent/src/send.js';
import { SimulatedHost } from '../agent-sim/catalogue.js';
import { processCpuSeconds } from './argus-server.js';
import { postBytes, RawConnection } from './raw-http.js';
import { writtenLine } from './written-ahead.js';
import { fmt, median, percentile } from './statistics.js';

export const PROMETHEUS_INSTALL = 'apt-get install -y prometheus (Debian/Ubuntu; apt-get update first if needed)';

/** The prometheus executable on PATH, or null. */
export function findPrometheus(): string | null {
  const found = spawnSync('sh', ['-c', 'command -v prometheus'], { encoding: 'utf8' });
  return found.status === 0 && found.stdout.trim() ? found.stdout.trim() : null;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface PrometheusPeer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts `binary` on a free loopback port, its TSDB in a temporary directory; resolves once ready. */
export async function startPrometheus(binary: string): Promise<PrometheusPeer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'argus-bench-prometheus-'));
  const config = path.join(dir, 'prometheus.yml');
  writeFileSync(config, 'global: {}\n'); // nothing scraped: only what is written to it
  const port = await freePort();
  const child: ChildProcess = spawn(
    binary,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--web.enable-remote-write-receiver',
      '--log.level=error', // its SIGTERM notice is no news
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let waited = 0; ; waited += 100) {
      if (child.exitCode !== null) throw new Error(`prometheus exited (${child.exitCode}) before it was ready`);
      const ready = await fetch(`${url}/-/ready`).then(
        (response) => response.ok,
        () => false,
      );
      if (ready) break;
      if (waited > 30_000) throw new Error('prometheus was not ready within 30 s');
      await sleep(100);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, pid: child.pid as number, stop };
}

/** Protobuf's base-128 varint of a non-negative integer below 2^53. */
function varint(value: number): number[] {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
  return bytes;
}

/** A length-delimited field (wire type 2). */
function field(number: number, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from([(number << 3) | 2, ...varint(body.length)]), body]);
}

/**
 * One host's reports as remote-write requests. The WriteRequest of prometheus/prompb is small and
 * fixed (timeseries = 1: labels = 1 {name = 1, value = 2}, samples = 2 {value = 1 double,
 * timestamp = 2 int64}), so it is written here: each series' bytes up to its sample's value are
 * made once, and a request only copies them and writes the values and the time (the bench shares
 * the cores with what it measures, so its own CPU a report is kept small, as the agents' is).
 */
export class RemoteWriteHost {
  private readonly host: SimulatedHost;
  /** Per series: its labels, encoded (fields 1 of a TimeSeries). */
  private readonly labels: Buffer[];
  /** The newest sample time sent or written ahead (epoch ms): a series' samples must grow in time. */
  lastMs = 0;
  /** Per series, for timestamps of one varint length: the TimeSeries up to its sample's value. */
  private prefixes: { timeBytes: number; heads: Buffer[]; size: number } | null = null;

  constructor(seed: number, hostname: string) {
    this.host = new SimulatedHost(seed);
    this.labels = this.host.sample(Date.now()).map((sample) => {
      // Prometheus's names have no '.'; labels sorted by name, as remote write requires
      const pairs: [string, string][] = [
        ['__name__', sample.name.replaceAll('.', '_')],
        ...(sample.instance ? ([['device', sample.instance]] as [string, string][]) : []),
        ['instance', hostname],
        ['job', 'argus-bench'],
      ];
      return Buffer.concat(
        pairs.map(([name, value]) =>
          field(1, Buffer.concat([field(1, Buffer.from(name)), field(2, Buffer.from(value))])),
        ),
      );
    });
  }

  private heads(timeBytes: number) {
    if (this.prefixes?.timeBytes !== timeBytes) {
      const sampleSize = 1 + 8 + 1 + timeBytes; // value: tag + double; timestamp: tag + varint
      const heads = this.labels.map((labels) => {
        const series = labels.length + 2 + sampleSize;
        return Buffer.from([0x0a, ...varint(series), ...labels, 0x12, sampleSize, 0x09]);
      });
      const size = heads.reduce((sum, head) => sum + head.length + 8 + 1 + timeBytes, 0);
      this.prefixes = { timeBytes, heads, size };
    }
    return this.prefixes;
  }

  /** The report at `ms` (epoch ms), snappy-compressed. */
  request(ms: number): Buffer {
    const values = this.host.sampleValues(ms);
    const time = varint(ms);
    const { heads, size } = this.heads(time.length);
    const out = Buffer.allocUnsafe(size);
    let at = 0;
    for (let i = 0; i < heads.length; i++) {
      const head = heads[i] as Buffer;
      out.set(head, at);
      at = out.writeDoubleLE(values[i] as number, at + head.length);
      out[at++] = 0x10;
      for (const byte of time) out[at++] = byte;
    }
    return compressSync(out, { copyOutputData: true }); // an external buffer costs ~3× the compression
  }
}

const keepAlive = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
const HEADERS = {
  'content-type': 'application/x-protobuf',
  'content-encoding': 'snappy',
  'x-prometheus-remote-write-version': '0.1.0',
};

export interface PeerPhase {
  reportsPerS: number;
  p50: number;
  p99: number;
  /** CPU a stored report (ms): Prometheus's process, the bench. */
  cpu: { peer: number; bench: number };
  /** Answers other than 204, by status (0: no answer). */
  refused: Map<number, number>;
  /** Requests written ahead of the phase (and during it, `late`), and what writing them ahead took. */
  written?: { requests: number; seconds: number; cpuMs: number; late: number };
}

/**
 * Every sender sends its next report as soon as the last is answered, for `seconds`. `writeAhead`:
 * each sender's requests for `expectedRate` reports/s over the phase are written before it (more as it
 * goes if needed) and sent on a raw keep-alive connection (raw-http.ts), as Argus's agents send theirs.
 */
export async function saturatePeer(
  peer: PrometheusPeer,
  senders: RemoteWriteHost[],
  seconds: number,
  writeAhead: { expectedRate: number } | null = null,
) {
  const url = `${peer.url}/api/v1/write`;
  const latencies: number[] = [];
  const refused = new Map<number, number>();
  let written: { requests: Buffer[][]; seconds: number; cpuMs: number } | null = null;
  if (writeAhead) {
    const perSender = Math.ceil((seconds * writeAhead.expectedRate) / senders.length) + 2;
    const spacing = (seconds * 1000) / perSender;
    const startedWriting = performance.now();
    const cpu = process.cpuUsage();
    const requests = senders.map((sender) => {
      const base = Math.max(Date.now(), sender.lastMs + 1);
      return Array.from({ length: perSender }, (_, k) => {
        sender.lastMs = base + Math.floor(k * spacing);
        return postBytes(url, HEADERS, sender.request(sender.lastMs));
      });
    });
    const used = process.cpuUsage(cpu);
    written = {
      requests,
      seconds: (performance.now() - startedWriting) / 1000,
      cpuMs: (used.user + used.system) / 1000,
    };
  }
  let writtenLate = 0;
  const cpuBefore = processCpuSeconds(peer.pid);
  const benchBefore = process.cpuUsage();
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    senders.map(async (sender, i) => {
      const queue = written?.requests[i];
      const connection = queue ? new RawConnection(url) : null;
      let k = 0;
      while (performance.now() < until) {
        const sentAt = performance.now();
        let status: number;
        if (queue && connection) {
          let bytes = queue[k++];
          if (!bytes) {
            sender.lastMs = Math.max(Date.now(), sender.lastMs + 1);
            bytes = postBytes(url, HEADERS, sender.request(sender.lastMs));
            writtenLate += 1;
          }
          status = await connection.send(bytes).then(
            (answer) => answer.status,
            () => 0,
          );
        } else {
          // a series' samples must grow in time: one ms past the last at least
          sender.lastMs = Math.max(Date.now(), sender.lastMs + 1);
          status = await post(url, HEADERS, sender.request(sender.lastMs), keepAlive).then(
            (response) => response.status,
            () => 0,
          );
        }
        if (status === 204) latencies.push(performance.now() - sentAt);
        else {
          refused.set(status, (refused.get(status) ?? 0) + 1);
          if (status === 0) await sleep(50);
        }
      }
      connection?.close();
    }),
  );
  const wall = (performance.now() - started) / 1000;
  const bench = process.cpuUsage(benchBefore);
  const peerCpu = processCpuSeconds(peer.pid) - cpuBefore;
  const sorted = latencies.sort((a, b) => a - b);
  const reports = Math.max(1, latencies.length);
  return {
    reportsPerS: latencies.length / wall,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    cpu: { peer: (peerCpu * 1000) / reports, bench: (bench.user + bench.system) / 1000 / reports },
    refused,
    ...(written
      ? {
          written: {
            requests: written.requests.reduce((n, list) => n + list.length, 0),
            seconds: written.seconds,
            cpuMs: written.cpuMs,
            late: writtenLate,
          },
        }
      : {}),
  } satisfies PeerPhase;
}

/** Prometheus's receiver, its senders and its phases. */
export interface Peer {
  prometheus: PrometheusPeer;
  senders: RemoteWriteHost[];
  phases: PeerPhase[];
  /** The best rate of any phase so far, the warm-up's included (how many requests to write ahead). */
  warmUp?: number;
}

/** Prometheus beside Argus: the machine's `prometheus`, or null (saying why) when there is none. */
export async function openPeer(enabled: boolean, systems: number, run: string): Promise<Peer | null> {
  if (!enabled) return null;
  const binary = findPrometheus();
  if (!binary) {
    console.log(`Prometheus: skipped, no \`prometheus\` on this machine (install: ${PROMETHEUS_INSTALL})`);
    return null;
  }
  const prometheus = await startPrometheus(binary);
  const senders = Array.from({ length: systems }, (_, i) => new RemoteWriteHost(i + 1, `${run}-host-${i}`));
  return { prometheus, senders, phases: [] };
}

/** One saturated phase, printed; `writeAhead`: its requests written before it (see saturatePeer). */
export async function peerPhase(name: string, peer: Peer, seconds: number, writeAhead = false): Promise<PeerPhase> {
  const best = Math.max(0, ...peer.phases.map((p) => p.reportsPerS), peer.warmUp ?? 0);
  const phase = await saturatePeer(
    peer.prometheus,
    peer.senders,
    seconds,
    writeAhead ? { expectedRate: Math.max(4000, 1.3 * best) } : null,
  );
  peer.warmUp = Math.max(peer.warmUp ?? 0, phase.reportsPerS);
  const other = [...phase.refused].map(([code, n]) => `${code || 'network error'}: ${n}`);
  console.log(
    `${name}: ${fmt(phase.reportsPerS)} reports/s, p50 ${phase.p50.toFixed(1)} ms, p99 ${phase.p99.toFixed(1)} ms` +
      `${other.length ? ` [${other.join(', ')}]` : ''}; CPU a report: Prometheus ${phase.cpu.peer.toFixed(2)} ms, ` +
      `bench ${phase.cpu.bench.toFixed(2)} ms; load ${os.loadavg()[0]?.toFixed(1) ?? '?'}`,
  );
  if (phase.written) console.log(writtenLine(phase.written, phase.written.late));
  return phase;
}

/**
 * The summary's lines: Prometheus's medians, then each contender against it, by the throughput of
 * the same rounds (`ratios`) and by CPU a report (its server and PostgreSQL, medians in ms).
 */
export function peerSummary(
  peer: Peer,
  contenders: { label: string; ratios: number[]; server: number; postgres: number }[],
): string[] {
  const phases = peer.phases;
  const cpu = median(phases.map((p) => p.cpu.peer));
  return [
    `  Prometheus: saturated ${fmt(median(phases.map((p) => p.reportsPerS)))} reports/s ` +
      `(${phases.map((p) => fmt(p.reportsPerS)).join(', ')}), p99 ${median(phases.map((p) => p.p99)).toFixed(1)} ms, ` +
      `CPU a report ${cpu.toFixed(2)} ms (its process, all threads), bench ${median(phases.map((p) => p.cpu.bench)).toFixed(2)} ms`,
    ...contenders.map(
      (c) =>
        `  ${c.label}/Prometheus: ${median(c.ratios).toFixed(2)} (${c.ratios.map((r) => r.toFixed(2)).join(', ')}); ` +
        `CPU a report: ${c.label} server ${c.server.toFixed(2)} + PostgreSQL ${c.postgres.toFixed(2)} = ` +
        `${(c.server + c.postgres).toFixed(2)} ms against Prometheus's ${cpu.toFixed(2)} ms ` +
        `(${c.label}/Prometheus by CPU: ${(cpu / Math.max(1e-9, c.server + c.postgres)).toFixed(2)})`,
    ),
  ];
}
