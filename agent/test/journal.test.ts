/**
 * OOM kills and failed services from the journal, sent once each. The journal is journalctl's
 * `-o json` output (fixtures/tools/journalctl-json.txt, written in its format: this machine has no
 * systemd journal to record from), served by a stand-in journalctl that honours the position
 * arguments, so "after the cursor" and "since the first start" are what the test checks.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { MAX_EVENTS_PER_REPORT } from '../../contracts/agent-report.js';
import { bootWatch, eventWatches } from '../src/events.js';
import {
  JOURNAL_EVERY_MS,
  MAX_EVENTS,
  eventOf,
  journalArgs,
  journalWatch,
  UNIT_FAILURE_RESULT,
} from '../src/journal.js';
import type { RunTool } from '../src/run-tool.js';
import { fixtureHost } from './fixture-host.js';

const RECORDED = readFileSync(new URL('./fixtures/tools/journalctl-json.txt', import.meta.url), 'utf8')
  .trim()
  .split('\n');

/** journalctl over `lines`: entries after --after-cursor, or all of them for --since (the test's entries are all newer). */
function fakeJournal(lines: string[]) {
  const asked: string[][] = [];
  const run: RunTool = async (file, args) => {
    if (file !== 'journalctl') return null;
    asked.push(args);
    const after = args.find((arg) => arg.startsWith('--after-cursor='))?.slice('--after-cursor='.length);
    const start = after
      ? lines.findIndex((line) => (JSON.parse(line) as { __CURSOR: string }).__CURSOR === after) + 1
      : 0;
    const limit = Number(args.find((arg) => arg.startsWith('--lines='))?.slice('--lines='.length));
    return {
      code: 0,
      stdout: lines
        .slice(start, start + limit)
        .map((line) => `${line}\n`)
        .join(''),
    };
  };
  return { run, asked };
}

const cursorOf = (line: string) => (JSON.parse(line) as { __CURSOR: string }).__CURSOR;

describe('events from the journal', () => {
  let state: string;
  beforeEach(async () => {
    state = await mkdtemp(join(tmpdir(), 'argus-journal-'));
  });
  afterEach(() => rm(state, { recursive: true, force: true }));

  it('turns OOM kills and failed units into events, and ignores the other kernel errors', async () => {
    const { run, asked } = fakeJournal(RECORDED);
    const events = await journalWatch(run, state, () => 1_795_660_800_000).events();
    assert.deepEqual(events, [
      { type: 'mem.oom_kill', severity: 'WARNING', message: 'Out of memory: the kernel killed process 48213 (java)' },
      { type: 'service.failed', severity: 'WARNING', message: 'nginx.service failed (exit-code)' },
      {
        type: 'mem.oom_kill',
        severity: 'WARNING',
        message: 'Memory cgroup out of memory: the kernel killed process 51002 (php-fpm8.2)',
      },
      { type: 'service.failed', severity: 'WARNING', message: 'backup-nightly.service failed (timeout)' },
    ]);
    // the very first start looks from its own moment on, and asks only for the two kinds of entry
    assert.ok(asked[0]?.includes('--since=@1795660800'));
    assert.deepEqual(asked[0]?.slice(-5), [
      '_TRANSPORT=kernel',
      'PRIORITY=3',
      '+',
      '_PID=1',
      `MESSAGE_ID=${UNIT_FAILURE_RESULT}`,
    ]);
  });

  it('sends each once: again after a crash before the report was buffered, never after', async () => {
    const first = journalWatch(fakeJournal(RECORDED.slice(0, 3)).run, state);
    assert.equal((await first.events()).length, 2);
    // crashed before the report reached the buffer: the next start asks from the same place
    const retry = journalWatch(fakeJournal(RECORDED.slice(0, 3)).run, state);
    assert.equal((await retry.events()).length, 2, 'not lost');
    await retry.commit();
    assert.deepEqual(JSON.parse(await readFile(join(state, 'journal.json'), 'utf8')), {
      cursor: cursorOf(RECORDED[2] as string),
    });

    // restarted, with two more entries in the journal: only those are news
    const journal = fakeJournal(RECORDED);
    let now = 1_795_660_800_000;
    const restarted = journalWatch(journal.run, state, () => now);
    const events = await restarted.events();
    assert.deepEqual(
      events.map((event) => event.message),
      [
        'Memory cgroup out of memory: the kernel killed process 51002 (php-fpm8.2)',
        'backup-nightly.service failed (timeout)',
      ],
    );
    assert.ok(journal.asked[0]?.includes(`--after-cursor=${cursorOf(RECORDED[2] as string)}`));
    await restarted.commit();
    now += JOURNAL_EVERY_MS;
    assert.deepEqual(await restarted.events(), [], 'nothing twice');
    assert.equal(journal.asked.length, 2, 'the journal was asked again');
  });

  it('keeps the first start as its starting point when nothing happened yet', async () => {
    const quiet = journalWatch(fakeJournal([]).run, state, () => 1_795_660_800_000);
    assert.deepEqual(await quiet.events(), []);
    await quiet.commit();
    const journal = fakeJournal(RECORDED.slice(0, 1));
    assert.equal((await journalWatch(journal.run, state, () => 1_795_669_999_000).events()).length, 1);
    assert.ok(journal.asked[0]?.includes('--since=@1795660800'), 'from the first start, not from this one');
  });

  it('sends at most a report’s worth of events and the rest with the next report', async () => {
    const oom = JSON.parse(RECORDED[0] as string) as Record<string, string>;
    const flood = Array.from({ length: 150 }, (_, i) =>
      JSON.stringify({
        ...oom,
        __CURSOR: `s=flood;i=${i}`,
        MESSAGE: `Out of memory: Killed process ${1000 + i} (worker)`,
      }),
    );
    assert.equal(MAX_EVENTS, MAX_EVENTS_PER_REPORT, 'the limit the server takes');
    let now = 0;
    const watch = journalWatch(fakeJournal(flood).run, state, () => now);
    const first = await watch.events();
    assert.equal(first.length, 100);
    await watch.commit();
    now += JOURNAL_EVERY_MS;
    const rest = await watch.events();
    assert.equal(rest.length, 50);
    assert.equal(rest[0]?.message, 'Out of memory: the kernel killed process 1100 (worker)');
  });

  it('asks the journal at most once a minute', async () => {
    let now = 0;
    const journal = fakeJournal(RECORDED.slice(0, 1));
    const watch = journalWatch(journal.run, state, () => now);
    assert.equal((await watch.events()).length, 1);
    await watch.commit();
    now += 30_000;
    assert.deepEqual(await watch.events(), []);
    await watch.commit();
    assert.equal(journal.asked.length, 1, 'not asked 30 s later');
    now += 30_000;
    await watch.events();
    assert.equal(journal.asked.length, 2, 'asked again a minute later');
  });

  it('sends nothing and keeps its place where the journal cannot be read', async () => {
    const unreadable: RunTool = async () => ({ code: 1, stdout: '' });
    const notInstalled: RunTool = async () => null;
    for (const run of [unreadable, notInstalled]) assert.deepEqual(await journalWatch(run, state).events(), []);
    assert.deepEqual(
      journalArgs({ cursor: 'c1' }).filter((arg) => arg.startsWith('--after-cursor')),
      ['--after-cursor=c1'],
    );
  });

  it('keeps messages printable, whatever a process is called', () => {
    const event = eventOf({
      _TRANSPORT: 'kernel',
      MESSAGE: 'Out of memory: Killed process 7 (a\u001bb\u0000) total-vm:1kB',
    });
    assert.equal(event?.message, 'Out of memory: the kernel killed process 7 (a?b?)');
    assert.equal(eventOf({ _TRANSPORT: 'journal', MESSAGE_ID: UNIT_FAILURE_RESULT }), null, 'no unit named');
  });

  it('rides on the same report as a reboot', async () => {
    const files = { '/proc/sys/kernel/random/boot_id': 'aaaa-1\n', '/proc/uptime': '60.00 100.00\n' };
    const before = bootWatch(fixtureHost({ files, statfs: {} }), state);
    await before.events();
    await before.commit();
    files['/proc/sys/kernel/random/boot_id'] = 'bbbb-2\n';
    let now = 0;
    const both = eventWatches(
      bootWatch(fixtureHost({ files, statfs: {} }), state),
      journalWatch(fakeJournal(RECORDED).run, state, () => now),
    );
    assert.deepEqual(
      (await both.events()).map((event) => event.type),
      ['system.reboot', 'mem.oom_kill', 'service.failed', 'mem.oom_kill', 'service.failed'],
    );
    await both.commit();
    now += JOURNAL_EVERY_MS;
    assert.deepEqual(await both.events(), [], 'both remembered');
  });
});
