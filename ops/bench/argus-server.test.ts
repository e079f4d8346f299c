import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { after, describe, it } from 'node:test';
import { processCpuSeconds, processTreeCpuSeconds, readLoop } from './argus-server.js';

describe("the ingest bench's figures of a server in several processes", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-loop-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('counts the CPU of the processes the server started (a cluster’s workers)', async () => {
    // a child that spends 0.5 s of CPU (not of wall time: the machine may be busy), says so, and
    // stays alive to be measured
    const spend = 'while (process.cpuUsage().user < 500000); console.log("spent"); setTimeout(() => {}, 30000);';
    const child = spawn(process.execPath, ['-e', spend], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await once(readline.createInterface({ input: child.stdout }), 'line');
      const own = processCpuSeconds(process.pid);
      const tree = processTreeCpuSeconds(process.pid);
      assert.ok(tree - own >= 0.45, `the child's CPU is counted (tree ${tree} s, own ${own} s)`);
      assert.ok(processTreeCpuSeconds(process.pid, true) >= processCpuSeconds(process.pid, process.pid));
    } finally {
      child.kill();
    }
  });

  it("sums the workers' event-loop figures, and reads the process's own without workers", () => {
    const single = path.join(dir, 'single.loop.json');
    writeFileSync(single, JSON.stringify({ active: 300, idle: 700 }));
    assert.deepEqual(readLoop(single), { active: 300, idle: 700 });

    const primary = path.join(dir, 'cluster.loop.json');
    writeFileSync(primary, JSON.stringify({ active: 1, idle: 999 }));
    writeFileSync(`${primary}.1`, JSON.stringify({ active: 900, idle: 100 }));
    writeFileSync(`${primary}.2`, JSON.stringify({ active: 800, idle: 200 }));
    assert.deepEqual(readLoop(primary), { active: 1700, idle: 300 });

    assert.deepEqual(readLoop(path.join(dir, 'not-written-yet.loop.json')), { active: 0, idle: 0 });
  });
});
