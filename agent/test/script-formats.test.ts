/**
 * The two formats script checks and drop-ins speak, read by the agent: the Nagios plugin output
 * (message and performance data) and the Prometheus text exposition format, with the edge cases
 * real plugins and exporters write; and which files may run.
 */
import assert from 'node:assert/strict';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { messageOf, perfValuesOf } from '../src/collectors/nagios-output.js';
import { parsePromText } from '../src/collectors/prom-text.js';
import { refusalOf, runCheck, scheduleOf } from '../src/collectors/scripts.js';
import { seriesOf } from '../src/collectors/textfile.js';

describe('Nagios plugin output', () => {
  it('takes the first line up to its bar as the message, cut and free of control characters', () => {
    assert.equal(
      messageOf('DISK OK - free space: / 3326 MB (56%);| /=2643MB;5948;5958;0;5968\nmore'),
      'DISK OK - free space: / 3326 MB (56%);',
    );
    assert.equal(messageOf('PING OK\u0007 - 0% loss'), 'PING OK - 0% loss');
    assert.equal(messageOf(''), '');
    const long = messageOf('x'.repeat(2000));
    assert.equal(long.length, 512);
    assert.ok(long.endsWith('…'));
  });

  it('reads performance data: quoted labels, units to base units, every line after a bar', () => {
    const output =
      "DISK OK | '/var log'=2643MB;5948;5958;0;5968 'it''s'=3 time=12ms;;;\n" +
      'long text line\n' +
      'more text | load1=0.52;1;2 up=U;; bad garbage count=7c';
    assert.deepEqual(perfValuesOf(output), [
      { label: '/var log', value: 2643 * 1024 ** 2 },
      { label: "it's", value: 3 },
      { label: 'time', value: 0.012 },
      { label: 'load1', value: 0.52 },
      { label: 'count', value: 7 },
    ]);
    assert.deepEqual(perfValuesOf('OK - no figures'), []);
    assert.deepEqual(perfValuesOf('OK | a=1 a=2 neg=-1.5e2'), [
      { label: 'a', value: 1 },
      { label: 'neg', value: -150 },
    ]);
    const many = `OK | ${Array.from({ length: 30 }, (_, i) => `v${i}=${i}`).join(' ')}`;
    assert.equal(perfValuesOf(many).length, 20, 'at most 20 figures a check');
  });
});

describe('the Prometheus text format', () => {
  it('reads samples with labels, escapes, special values and timestamps; says which lines it cannot', () => {
    const parsed = parsePromText(
      [
        '# HELP node_textfile_x A help text with "quotes".',
        '# TYPE node_textfile_x gauge',
        'node_textfile_x{path="C:\\\\dir",note="a \\"b\\"\\nc",} 1.5e3',
        'plain 42 1700000000000',
        'spaced { a = "1" , b="2"} -0.5',
        'special{kind="nan"} NaN',
        'special{kind="inf"} +Inf',
        '',
        'broken{a="1" 3',
        'nolabelvalue{a=1} 3',
        'twice{a="1",a="2"} 3',
        'novalue{a="1"}',
        '9starts_with_digit 1',
      ].join('\n'),
    );
    assert.deepEqual(parsed.samples.slice(0, 3), [
      {
        name: 'node_textfile_x',
        labels: [
          ['path', 'C:\\dir'],
          ['note', 'a "b"\nc'],
        ],
        value: 1500,
      },
      { name: 'plain', labels: [], value: 42 },
      {
        name: 'spaced',
        labels: [
          ['a', '1'],
          ['b', '2'],
        ],
        value: -0.5,
      },
    ]);
    assert.ok(Number.isNaN(parsed.samples[3]?.value));
    assert.equal(parsed.samples[4]?.value, Infinity);
    assert.deepEqual(
      parsed.errors.map((e) => e.line),
      [9, 10, 11, 12, 13],
    );
  });

  it('maps names and labels to series: lower case, ":" as "_", labels sorted as the instance', () => {
    assert.deepEqual(
      seriesOf('App:Requests_total', [
        ['zone', 'b'],
        ['code', '200'],
      ]),
      { name: 'app_requests_total', instance: 'code=200,zone=b' },
    );
    assert.deepEqual(seriesOf('up', []), { name: 'up', instance: '' });
    assert.match(String(seriesOf('x'.repeat(65), [])), /longer than 64/);
    assert.match(String(seriesOf('x', [['a', 'v'.repeat(200)]])), /longer than 128/);
    assert.match(String(seriesOf('x', [['a', 'line\nbreak']])), /not printable/);
  });
});

describe('which script checks run, and when', () => {
  const file = (uid: number, mode: number) => ({ uid, mode: 0o100000 | mode, isFile: () => true });
  it("runs only root's files that its group and others cannot write", () => {
    assert.equal(refusalOf(file(0, 0o755)), null);
    assert.equal(refusalOf(file(0, 0o700)), null);
    assert.equal(refusalOf(file(1000, 0o755)), 'owned by uid 1000, not root');
    assert.equal(refusalOf(file(0, 0o775)), 'writable by its group or others');
    assert.equal(refusalOf(file(0, 0o757)), 'writable by its group or others');
    assert.equal(refusalOf(file(0, 0o644)), 'not executable');
    assert.equal(refusalOf({ uid: 0, mode: 0o755, isFile: () => false }), 'not a regular file');
  });

  it('takes the interval and timeout of the check, else of all checks, else the defaults', () => {
    assert.deepEqual(scheduleOf({}, 'backup'), { intervalMs: 60_000, timeoutMs: 10_000 });
    assert.deepEqual(scheduleOf({ 'scripts.interval': '300', 'scripts.timeout': '30' }, 'backup'), {
      intervalMs: 300_000,
      timeoutMs: 30_000,
    });
    assert.deepEqual(
      scheduleOf(
        { 'scripts.interval': '300', 'scripts.backup.interval': '3600', 'scripts.backup.timeout': 'x' },
        'backup',
      ),
      { intervalMs: 3_600_000, timeoutMs: 10_000 },
    );
    assert.deepEqual(scheduleOf({ 'scripts.interval': '1' }, 'backup').intervalMs, 60_000, 'below 5 s: the default');
  });
});

describe('a run of a check', () => {
  it('keeps the first output of a chatty check, and a child left holding its pipe does not hold the result', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'argus-check-run-'));
    try {
      const path = join(dir, 'chatty');
      await writeFile(
        path,
        '#!/bin/sh\necho "OK - chatty | size=1KB"\nhead -c 1000000 /dev/zero | tr "\\0" y\nsleep 30 &\nexit 0\n',
      );
      await chmod(path, 0o755);
      const started = Date.now();
      const { result, samples } = await runCheck(path, 'chatty', 10_000, Date.now);
      assert.ok(Date.now() - started < 5000, `done in ${Date.now() - started} ms, not after the sleep`);
      assert.deepEqual([result.state, result.message], ['OK', 'OK - chatty']);
      assert.deepEqual(samples, [
        { name: 'script.state', instance: 'chatty', value: 0 },
        { name: 'script.perf', instance: 'chatty:size', value: 1024 },
      ]);
      await writeFile(path, '#!/nonexistent/interpreter\necho OK\n');
      const refused = await runCheck(path, 'chatty', 10_000, Date.now);
      assert.deepEqual([refused.result.state, refused.result.message], ['UNKNOWN', 'could not run: ENOENT']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
