/**
 * `npm run bench -- agent [seconds]` (issue 12 item 8): the footprint of the built x86_64 agent as a
 * service. It runs `argus-agent run` at the shortest interval (5 s) against a local sink that
 * answers as Argus does, and reads the process's CPU time and resident memory from /proc.
 * Targets: ≤ 60 MB RSS, ≤ 20 ms CPU per collection, ≤ 1 % of one core at the 30 s interval.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildAgent } from '../../agent/build/build-agent.js';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

async function usage(pid: number): Promise<{ cpuMs: number; rssMb: number }> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime + stime
  const rss = /VmRSS:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1];
  return { cpuMs: (ticks * 1000) / TICKS_PER_SECOND, rssMb: Number(rss) / 1024 };
}

export async function benchAgent(args: string[]): Promise<void> {
  const seconds = Number(args[0] ?? 60);
  const { dir } = await buildAgent();
  let reports = 0;
  const sink = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      reports += 1;
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({ accepted: 1, duplicates: 0, skipped: 0, settings: {}, settings_rev: '0', update: null }),
      );
    });
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const state = await mkdtemp(join(tmpdir(), 'argus-agent-bench-'));
  const config = join(state, 'config.yaml');
  const port = (sink.address() as { port: number }).port;
  await writeFile(
    config,
    `webhook_url: "http://127.0.0.1:${port}/api/webhook/metrics"\nwebhook_secret: "bench"\nstate_dir: "${state}"\ninterval: 5\n`,
  );
  const agent = spawn(join(dir, 'argus-agent-linux-x86_64'), ['run', '--config', config], { stdio: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 3000)); // start-up and the first report's two looks
  const start = await usage(agent.pid as number);
  const reportsAtStart = reports;
  let peakRss = start.rssMb;
  for (let t = 0; t < seconds; t += 5) {
    await new Promise((resolve) => setTimeout(resolve, 5000));
    peakRss = Math.max(peakRss, (await usage(agent.pid as number)).rssMb);
  }
  const end = await usage(agent.pid as number);
  const collections = reports - reportsAtStart;
  agent.kill('SIGTERM');
  sink.close();
  await rm(state, { recursive: true, force: true });
  const perCollection = (end.cpuMs - start.cpuMs) / Math.max(1, collections);
  console.log(
    `agent (built x86_64 executable, ${collections} collections and reports in ${seconds} s): ` +
      `RSS ${end.rssMb.toFixed(1)} MB (peak ${peakRss.toFixed(1)}), CPU ${perCollection.toFixed(1)} ms per collection ` +
      `(collect + gzip + send), ${((perCollection / 30_000) * 100).toFixed(3)} % of one core at the 30 s interval`,
  );
}
