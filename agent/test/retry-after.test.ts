/**
 * `argus-agent run` against a server that slows it down (docs/protocol.md, 429 and Retry-After): a real HTTP server
 * answers the agent's buffered reports 429 with `Retry-After: 4`, as Argus does to a replayed buffer
 * while its write path is deep. The agent sends no buffer until the four seconds are over (its
 * interval here is 0.2 s, its own backoff after a first failure 2.5 s), keeps collecting meanwhile
 * and sends each new report alone at its tick (live: Argus takes it, so the system shows ONLINE while
 * the backlog waits), then delivers every report of its buffer once, in order.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import type { AgentBody, AgentReport } from '../../contracts/agent-report.js';
import { openBuffer } from '../src/buffer.js';
import { parseConfig } from '../src/config.js';
import { runAgent } from '../src/runner.js';
import { until } from './link.js';

describe('argus-agent run: 429 with Retry-After', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'argus-retry-after-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('waits what Retry-After says with its buffer, sends each new report alone meanwhile, then delivers every report once', async () => {
    const requests: { at: number; status: number; reports: string[] }[] = [];
    const refused = 2; // the first request and the first buffer after it are refused
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = JSON.parse(gunzipSync(Buffer.concat(chunks)).toString('utf8')) as AgentBody;
        const refusals = requests.filter((r) => r.status === 429).length;
        // as Argus's admission: a buffer is refused while busy, a report alone (live) is taken
        const status = refusals < refused && (requests.length === 0 || body.reports.length > 1) ? 429 : 200;
        requests.push({ at: Date.now(), status, reports: body.reports.map((report) => report.ts) });
        if (status === 429) {
          res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '4' });
          res.end(JSON.stringify({ error: 'The server is busy storing live reports: send these again in 4 s' }));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            accepted: body.reports.length,
            duplicates: 0,
            skipped: 0,
            settings: {},
            settings_rev: 'rev-1',
            update: null,
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;

    const config = parseConfig(
      `webhook_url: "http://127.0.0.1:${port}/api/webhook/metrics"\nwebhook_secret: "retry-after-secret-0123456789abcdef"\n` +
        `state_dir: "${dir}"\n`,
    );
    const buffer = await openBuffer(join(dir, 'buffer'));
    const made: string[] = [];
    let n = 0;
    const collector = {
      report: async (): Promise<AgentReport> => {
        const report = { ts: new Date(Date.now() + n).toISOString(), metrics: [{ name: 'test.n', value: n++ }] };
        made.push(report.ts);
        return report;
      },
    };
    const logs: string[] = [];
    const stop = new AbortController();
    const running = runAgent(
      {
        config,
        identity: { sub: 'retry-after-host', agentKey: 'key' },
        facts: { hostname: 'retry-after-host', arch: 'x86_64' },
        collector,
        buffer,
        log: (line) => logs.push(line),
        intervalMs: 200,
        random: () => 0,
        settings: { current: {} },
      },
      stop.signal,
    );
    try {
      await until(
        'the refusals and a buffer delivered',
        async () => requests.some((r) => r.status === 200 && r.reports.length > 1),
        20_000,
      );
      await until('the buffer to drain', async () => (await buffer.size()) <= 1 && made.length >= 30, 20_000);
    } finally {
      stop.abort();
      await running;
      server.close();
    }

    // within the four seconds after a 429 only new reports alone; the buffer again after them
    const refusals = requests.filter((r) => r.status === 429);
    assert.equal(refusals.length, refused);
    const waiting = (at: number) => refusals.some((r) => at > r.at && at - r.at < 3950);
    assert.ok(
      requests.filter((r) => waiting(r.at)).every((r) => r.reports.length === 1 && r.status === 200),
      'only reports alone while it waits',
    );
    // until a buffer is taken, each tick's new report went alone first
    const firstBuffer = requests.findIndex((r) => r.status === 200 && r.reports.length > 1);
    const live = requests.slice(1, firstBuffer).filter((r) => r.status === 200);
    assert.ok(live.length >= 10, `a new report alone at its ticks while it waits (${live.length})`);
    assert.ok(made.length >= 30, 'collected every 0.2 s while it waited');
    // the buffer, delivered after the waits: every report once, in order (those sent alone included),
    // and no report alone any more
    const delivered = requests.slice(firstBuffer);
    const left = await buffer.size();
    assert.deepEqual(
      delivered.flatMap((r) => r.reports),
      made.slice(0, made.length - left),
      'every report once, in order',
    );
    assert.ok(
      live.every((r) => made.includes(r.reports[0] as string)),
      'the live reports are reports it made',
    );
    assert.ok(
      logs.some((line) => /answered 429/.test(line)),
      logs.join('\n'),
    );
  });

  it('sends the buffer again as soon as Retry-After is over, not at the next tick after it', async () => {
    const answers: { at: number; status: number }[] = [];
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const status = answers.length === 0 ? 429 : 200;
        answers.push({ at: Date.now(), status });
        res.writeHead(status, {
          'content-type': 'application/json',
          ...(status === 429 ? { 'retry-after': '1' } : {}),
        });
        res.end(JSON.stringify(status === 429 ? { error: 'busy' } : { accepted: 1, settings: {}, settings_rev: 'r' }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const state = await mkdtemp(join(tmpdir(), 'argus-retry-after-wake-'));
    const config = parseConfig(
      `webhook_url: "http://127.0.0.1:${port}/api/webhook/metrics"\nwebhook_secret: "retry-after-secret-0123456789abcdef"\n` +
        `state_dir: "${state}"\n`,
    );
    const buffer = await openBuffer(join(state, 'buffer'));
    const stop = new AbortController();
    const running = runAgent(
      {
        config,
        identity: { sub: 'retry-after-wake', agentKey: 'key' },
        facts: { hostname: 'retry-after-wake', arch: 'x86_64' },
        collector: { report: async () => ({ ts: new Date().toISOString(), metrics: [{ name: 'test.n', value: 1 }] }) },
        buffer,
        log: () => {},
        // a tick a minute: the next one is far after the wait
        intervalMs: 60_000,
        random: () => 0,
        settings: { current: {} },
      },
      stop.signal,
    );
    try {
      await until('the buffer delivered', async () => answers.some((a) => a.status === 200), 10_000);
    } finally {
      stop.abort();
      await running;
      server.close();
      await rm(state, { recursive: true, force: true });
    }
    const [refused, delivered] = answers as [{ at: number; status: number }, { at: number; status: number }];
    const after = delivered.at - refused.at;
    assert.ok(after >= 950 && after < 5_000, `delivered ${after} ms after the 429 with Retry-After: 1`);
    assert.equal(answers.length, 2);
  });
});
