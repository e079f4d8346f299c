import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from '../lib/clock.js';
import { createReplayBuffer } from './replay.js';

const entry = (seq: number, topic = 'alert', dataJson = '{"n":1}') => ({
  seq,
  topic,
  reach: { customerId: 1 },
  dataJson,
});

describe('replay buffer', () => {
  it('gives the messages of a topic after a sequence number, oldest first', () => {
    const buffer = createReplayBuffer(new FakeClock());
    for (let seq = 1; seq <= 5; seq += 1) buffer.add(entry(seq, seq % 2 ? 'alert' : 'system:1'));
    assert.deepEqual(
      buffer.since('alert', 1).map((e) => e.seq),
      [3, 5],
    );
    assert.deepEqual(
      buffer.since('system:1', 0).map((e) => e.seq),
      [2, 4],
    );
  });

  it('forgets what is older than 10 minutes', () => {
    const clock = new FakeClock();
    const buffer = createReplayBuffer(clock);
    buffer.add(entry(1));
    clock.advance(9 * 60_000);
    buffer.add(entry(2));
    clock.advance(60_001);
    assert.deepEqual(
      buffer.since('alert', 0).map((e) => e.seq),
      [2],
    );
  });

  it('stays within its byte cap, dropping the oldest first', () => {
    const buffer = createReplayBuffer(new FakeClock(), { maxAgeMs: 600_000, maxBytes: 10_000 });
    const data = `"${'x'.repeat(1000)}"`;
    for (let seq = 1; seq <= 50; seq += 1) buffer.add(entry(seq, 'alert', data));
    assert.ok(buffer.stats().bytes <= 10_000, `${buffer.stats().bytes} bytes`);
    const kept = buffer.since('alert', 0).map((e) => e.seq);
    assert.equal(kept.at(-1), 50);
    assert.ok(kept.length < 50 && kept.length >= 3, `${kept.length} kept`);
    assert.deepEqual(
      kept,
      [...kept].sort((a, b) => a - b),
    );
  });
});
