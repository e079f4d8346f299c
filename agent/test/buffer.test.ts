/** The on-disk buffer: order, delivery positions across reopen, a torn tail, the size and age limits. */
import assert from 'node:assert/strict';
import { appendFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { AgentReport } from '../../contracts/agent-report.js';
import { openBuffer } from '../src/buffer.js';

const report = (n: number): AgentReport => ({
  ts: new Date(Date.UTC(2026, 10, 25, 0, 0, n)).toISOString(),
  metrics: [{ name: 'cpu.usage_pct', value: n }],
});
const values = (reports: AgentReport[]) => reports.map((r) => r.metrics[0]?.value);

describe('the report buffer', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'argus-buffer-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('gives reports back oldest first, in batches, and forgets only what was acknowledged', async () => {
    const buffer = await openBuffer(dir, { maxBytes: 1e9, maxAgeMs: 1e12, segmentBytes: 300 });
    for (let n = 1; n <= 12; n++) await buffer.append(report(n));
    assert.ok((await readdir(dir)).filter((f) => f.endsWith('.seg')).length > 2, 'spread over several segments');
    assert.deepEqual(values(await buffer.peek(5)), [1, 2, 3, 4, 5]);
    await buffer.acknowledge(5);
    assert.deepEqual(values(await buffer.peek(500)), [6, 7, 8, 9, 10, 11, 12]);

    // a restart: the position survives, nothing delivered comes back, nothing undelivered is lost
    const reopened = await openBuffer(dir, { maxBytes: 1e9, maxAgeMs: 1e12, segmentBytes: 300 });
    assert.equal(await reopened.size(), 7);
    await reopened.acknowledge(7);
    assert.equal(await reopened.size(), 0);
    await reopened.append(report(13));
    assert.deepEqual(values(await reopened.peek(500)), [13]);
    assert.ok(
      (await readdir(dir)).filter((f) => f.endsWith('.seg')).length <= 2,
      'segments read to the end are deleted',
    );
  });

  it('skips a line torn by a crash and keeps everything after it', async () => {
    const buffer = await openBuffer(dir);
    await buffer.append(report(1));
    const [segment] = (await readdir(dir)).filter((f) => f.endsWith('.seg'));
    await appendFile(join(dir, segment as string), '1a2b3c4d {"ts":"2026-11-25T00:00:0'); // the crash
    const reopened = await openBuffer(dir);
    await reopened.append(report(2));
    assert.deepEqual(values(await reopened.peek(500)), [1, 2]);
  });

  it('skips a line whose checksum does not match', async () => {
    const buffer = await openBuffer(dir);
    await buffer.append(report(1));
    const [segment] = (await readdir(dir)).filter((f) => f.endsWith('.seg'));
    await appendFile(join(dir, segment as string), `00000000 ${JSON.stringify(report(99))}\n`);
    await buffer.append(report(2));
    assert.deepEqual(values(await buffer.peek(500)), [1, 2]);
  });

  it('drops the oldest reports past the size limit and counts them', async () => {
    const buffer = await openBuffer(dir, { maxBytes: 1000, maxAgeMs: 1e12, segmentBytes: 250 });
    for (let n = 1; n <= 40; n++) await buffer.append(report(n));
    const left = values(await buffer.peek(500));
    assert.ok(left.length < 40 && left.length > 5, `${left.length} kept`);
    assert.equal(left[left.length - 1], 40, 'the newest are kept');
    assert.deepEqual(
      left,
      [...left].sort((a, b) => (a ?? 0) - (b ?? 0)),
      'still in order',
    );
    assert.equal(buffer.dropped() + left.length, 40, 'every report is either kept or counted as dropped');
  });

  it('drops segments older than the age limit', async () => {
    let now = Date.now();
    const buffer = await openBuffer(dir, { maxBytes: 1e9, maxAgeMs: 60_000, segmentBytes: 100 }, () => now);
    await buffer.append(report(1));
    await buffer.append(report(2));
    now += 120_000; // two minutes later, the first segments are past the limit
    await buffer.append(report(3));
    assert.deepEqual(values(await buffer.peek(500)), [3]);
    assert.equal(buffer.dropped(), 2);
  });
});
