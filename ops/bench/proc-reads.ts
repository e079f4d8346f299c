/**
 * `npm run bench -- processes [--rounds 20] [--extra 300]`: the CPU of the two collectors that read
 * every /proc/<pid>/stat (the zombie count and the process lists), each reading them on its own
 * (as before) against one read shared by both (as the agent does now), alternately in one run on
 * this machine's real /proc. `--extra` starts that many sleeping processes first, so the count of
 * processes is that of a busy host (50 containers' worth). Figures only.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { parseArgs } from 'node:util';
import { kernelCollector } from '../../agent/src/collectors/kernel.js';
import { sharedProcStats } from '../../agent/src/collectors/proc-stats.js';
import { processesCollector } from '../../agent/src/collectors/processes.js';
import { localHost } from '../../agent/src/host.js';
import { median } from './statistics.js';

const settings = () => ({ processes: 'nginx, postgres*, /usr/bin/java *app.jar', 'processes.top': '5' });

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** One collection of both collectors, as collect.ts runs them (at once). */
function variant(shared: boolean) {
  const host = localHost();
  const reads = sharedProcStats(host);
  const kernel = shared ? kernelCollector(host, reads.stats) : kernelCollector(host);
  const processes = shared
    ? processesCollector(host, settings, () => performance.now(), reads.stats)
    : processesCollector(host, settings, () => performance.now());
  return async () => {
    reads.next();
    await Promise.all([kernel(), processes()]);
  };
}

export async function benchProcReads(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { rounds: { type: 'string', default: '20' }, extra: { type: 'string', default: '300' } },
  });
  const sleepers: ChildProcess[] = [];
  for (let i = 0; i < Number(values.extra); i++) sleepers.push(spawn('sleep', ['600'], { stdio: 'ignore' }));
  try {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const pids = (await localHost().list('/proc')).filter((p) => /^\d+$/.test(p)).length;
    const separate = variant(false);
    const shared = variant(true);
    await separate();
    await shared();
    const times = { separate: [] as number[], shared: [] as number[] };
    for (let round = 0; round < Number(values.rounds); round++) {
      for (const [name, collect] of [
        ['separate', separate],
        ['shared', shared],
      ] as const) {
        const before = cpuMs();
        await collect();
        times[name].push(cpuMs() - before);
      }
    }
    console.log(
      `${pids} processes, ${values.rounds} rounds alternately: CPU a collection of the zombie count and the ` +
        `process lists, each reading /proc/<pid>/stat (before): median ${median(times.separate).toFixed(1)} ms; ` +
        `one read shared (after): median ${median(times.shared).toFixed(1)} ms`,
    );
  } finally {
    for (const sleeper of sleepers) sleeper.kill('SIGKILL');
  }
}
