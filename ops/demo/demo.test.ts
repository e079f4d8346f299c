import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort, waitFor } from '../../backend/src/testing/net.js';
import { startScript } from '../../backend/src/testing/script.js';

describe('npm run demo', () => {
  let demoDir: string;
  let consoleDir: string;
  before(async () => {
    demoDir = await mkdtemp(path.join(os.tmpdir(), 'argus-demo-'));
    consoleDir = await mkdtemp(path.join(os.tmpdir(), 'argus-demo-console-'));
    // a stand-in console build, so the test does not spend a minute in `ng build`
    await writeFile(path.join(consoleDir, 'index.html'), '<!doctype html><title>Argus</title><app-root></app-root>');
  });
  after(async () => {
    await rm(demoDir, { recursive: true, force: true });
    await rm(consoleDir, { recursive: true, force: true });
  });

  async function runDemoOnce(): Promise<string> {
    const port = await freePort();
    const demo = startScript('ops/demo/demo.ts', [], {
      ARGUS_DEMO_DIR: demoDir,
      STATIC_DIR: consoleDir,
      PORT: String(port),
    });
    try {
      let health: Record<string, unknown> = {};
      await waitFor(
        async () => {
          const response = await fetch(`http://127.0.0.1:${port}/api/health`);
          health = (await response.json()) as Record<string, unknown>;
          return response.status === 200;
        },
        120_000,
        250,
      );
      assert.deepEqual(health['services'], { database: 'ok', redis: 'ok' });
      assert.match(await (await fetch(`http://127.0.0.1:${port}/systems`)).text(), /<app-root>/);
      await waitFor(() => demo.output().includes('Argus demo is running'), 10_000);
      await waitFor(() => demo.output().includes('Simulating 10 agents'), 20_000);
      assert.match(demo.output(), new RegExp(`open http://127\\.0\\.0\\.1:${port}`));
      demo.kill('SIGINT'); // to the whole group, like Ctrl+C in a terminal
      assert.equal(await demo.exited, 0, demo.output());
      return demo.output();
    } finally {
      demo.kill('SIGKILL');
    }
  }

  it('starts on the embedded TimescaleDB, answers health, serves the console and stops cleanly', async () => {
    const output = await runDemoOnce();
    assert.match(output, /metrics is now a hypertable/);
    assert.match(output, /Added the demo fleet/);
    // one agent for each of the 7 sample hosts (so they keep reporting) and 3 new hosts
    assert.match(output, /Simulating 10 agents/, 'the simulated agents run');
    assert.equal(existsSync(path.join(demoDir, 'demo.pid')), false, 'the pid file is removed on exit');
    const secrets = await stat(path.join(demoDir, 'secrets.json'));
    assert.equal(secrets.mode & 0o077, 0, 'generated secrets are readable by the owner only');
  });

  it('starts again on the kept data without adding the demo fleet twice', async () => {
    const output = await runDemoOnce();
    assert.match(output, /Demo fleet already present/);
    assert.match(output, /Schema is up to date/);
  });
});
