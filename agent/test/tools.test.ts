/**
 * The collectors that ask the host's own tools, against their recorded answers
 * (fixtures/tools/: apt-get's simulation as this Debian 12 machine printed it; smartctl 7.3's JSON,
 * chronyc's and timedatectl's text as those tools print them). A tool missing, failing or not
 * knowing leaves the metric out.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { atMostEvery } from '../src/collectors/cadence.js';
import { chronyOffsetMs, clockCollector, timesyncdOffsetMs } from '../src/collectors/clock.js';
import { smartCollector } from '../src/collectors/smart.js';
import { aptSecurityUpgrades, dnfSecurityPackages, updatesCollector } from '../src/collectors/updates.js';
import type { RunTool } from '../src/run-tool.js';
import { sample } from '../src/sample.js';

const recorded = (name: string) => readFileSync(new URL(`./fixtures/tools/${name}`, import.meta.url), 'utf8');

/** A host whose tools answer from `answers` (keyed by the command line); anything else is not installed. */
function toolsAnswering(answers: Record<string, { code?: number; stdout: string }>) {
  const calls: string[] = [];
  const run: RunTool = async (file, args) => {
    const command = [file, ...args].join(' ');
    calls.push(command);
    const answer = answers[command];
    return answer ? { code: answer.code ?? 0, stdout: answer.stdout } : null;
  };
  return { run, calls };
}

/** Equal to a nanosecond: seconds and microseconds times 1000 are not exact in binary. */
const nearly = (actual: number | null, expected: number) =>
  assert.ok(actual !== null && Math.abs(actual - expected) < 1e-6, `${actual} is not ${expected}`);

const health = (type: string, device: string) => `smartctl -H -j -n standby -d ${type} ${device}`;

describe('SMART health (disk.smart_ok)', () => {
  it('gives each drive its verdict and leaves out drives asleep, without SMART or not openable', async () => {
    const { run } = toolsAnswering({
      'smartctl --scan -j': { stdout: recorded('smartctl-scan.json') },
      [health('sat', '/dev/sda')]: { stdout: recorded('smartctl-H-passed.json') },
      [health('sat', '/dev/sdb')]: { code: 2, stdout: recorded('smartctl-H-standby.json') },
      [health('scsi', '/dev/sdc')]: { code: 4, stdout: recorded('smartctl-H-no-smart.json') },
      [health('nvme', '/dev/nvme0')]: { code: 8, stdout: recorded('smartctl-H-failed.json') },
      [health('megaraid,0', '/dev/bus/0')]: { code: 2, stdout: recorded('smartctl-H-permission-denied.json') },
    });
    assert.deepEqual(await smartCollector(run)(), [
      sample('disk.smart_ok', 1, 'sda'),
      sample('disk.smart_ok', 0, 'nvme0'),
    ]);
  });

  it('tells drives behind a RAID controller apart by their type', async () => {
    const { run } = toolsAnswering({
      'smartctl --scan -j': {
        stdout: JSON.stringify({
          devices: [
            { name: '/dev/bus/0', type: 'megaraid,0' },
            { name: '/dev/bus/0', type: 'megaraid,1' },
          ],
        }),
      },
      [health('megaraid,0', '/dev/bus/0')]: { stdout: recorded('smartctl-H-passed.json') },
      [health('megaraid,1', '/dev/bus/0')]: { code: 8, stdout: recorded('smartctl-H-failed.json') },
    });
    assert.deepEqual(await smartCollector(run)(), [
      sample('disk.smart_ok', 1, 'bus/0 [megaraid,0]'),
      sample('disk.smart_ok', 0, 'bus/0 [megaraid,1]'),
    ]);
  });

  it('sends nothing where smartctl is not installed or answers no JSON (smartmontools before 7)', async () => {
    assert.deepEqual(await smartCollector(toolsAnswering({}).run)(), []);
    const old = toolsAnswering({ 'smartctl --scan -j': { code: 1, stdout: 'UNRECOGNIZED OPTION: j\n' } });
    assert.deepEqual(await smartCollector(old.run)(), []);
  });
});

describe('pending security updates (updates.security)', () => {
  it('counts the upgrades apt would take from a -security suite (Debian 12, as recorded here)', async () => {
    // 41 upgrades recorded, 26 of them also published in Debian-Security:12/oldstable-security
    assert.equal(aptSecurityUpgrades(recorded('apt-get-s-dist-upgrade.debian12.txt')), 26);
    const { run, calls } = toolsAnswering({
      'apt-get -s -q -o Debug::NoLocking=true dist-upgrade': {
        stdout: recorded('apt-get-s-dist-upgrade.debian12.txt'),
      },
    });
    assert.deepEqual(await updatesCollector(run)(), [sample('updates.security', 26)]);
    assert.equal(calls.length, 1, 'dnf is not asked where apt answered');
  });

  it("reads Ubuntu's pockets and counts neither new packages nor Conf lines", () => {
    const ubuntu = [
      'Inst libssl3t64 [3.0.13-0ubuntu3.4] (3.0.13-0ubuntu3.5 Ubuntu:24.04/noble-updates, Ubuntu:24.04/noble-security [amd64])',
      'Inst vim [2:9.1.0016-1ubuntu7.5] (2:9.1.0016-1ubuntu7.6 Ubuntu:24.04/noble-updates [amd64])',
      'Inst linux-image-6.8.0-50-generic (6.8.0-50.51 Ubuntu:24.04/noble-security [amd64])',
      'Conf libssl3t64 (3.0.13-0ubuntu3.5 Ubuntu:24.04/noble-updates, Ubuntu:24.04/noble-security [amd64])',
    ].join('\n');
    assert.equal(aptSecurityUpgrades(ubuntu), 1);
    assert.equal(aptSecurityUpgrades('Reading package lists...\n0 upgraded, 0 newly installed\n'), 0);
  });

  it('counts the packages of dnf security advisories once each', async () => {
    assert.equal(dnfSecurityPackages(recorded('dnf4-updateinfo-list-security.txt')), 4);
    const { run } = toolsAnswering({
      'dnf -q -C updateinfo list --security': { stdout: recorded('dnf4-updateinfo-list-security.txt') },
    });
    assert.deepEqual(await updatesCollector(run)(), [sample('updates.security', 4)]);
  });

  it('sends nothing where neither package manager answers (apt locked out, dnf without its cache)', async () => {
    assert.deepEqual(await updatesCollector(toolsAnswering({}).run)(), []);
    const failing = toolsAnswering({
      'apt-get -s -q -o Debug::NoLocking=true dist-upgrade': { code: 100, stdout: '' },
      'dnf -q -C updateinfo list --security': { code: 1, stdout: '' },
    });
    assert.deepEqual(await updatesCollector(failing.run)(), []);
  });
});

describe('clock offset (time.offset_ms, positive when the host is ahead)', () => {
  it("reads chrony's System time, slow as negative and fast as positive", async () => {
    nearly(chronyOffsetMs(recorded('chronyc-tracking.txt')), -0.123456);
    nearly(chronyOffsetMs(recorded('chronyc-tracking-fast.txt')), 2503);
    const { run, calls } = toolsAnswering({ 'chronyc tracking': { stdout: recorded('chronyc-tracking-fast.txt') } });
    assert.deepEqual(await clockCollector(run)(), [sample('time.offset_ms', 2503)]);
    assert.deepEqual(calls, ['chronyc tracking']);
  });

  it('falls back to systemd-timesyncd, whose NTP offset (server minus host) is turned round', async () => {
    nearly(timesyncdOffsetMs(recorded('timedatectl-timesync-status.txt')), 1.063);
    nearly(timesyncdOffsetMs('       Offset: +2.5s\n'), -2500);
    nearly(timesyncdOffsetMs('       Offset: -350us\n'), 0.35);
    const { run } = toolsAnswering({
      'timedatectl timesync-status': { stdout: recorded('timedatectl-timesync-status.txt') },
    });
    assert.deepEqual(await clockCollector(run)(), [sample('time.offset_ms', 1.06)]);
  });

  it('sends nothing while unsynchronised or without an NTP client (a container, this machine)', async () => {
    assert.equal(chronyOffsetMs(recorded('chronyc-tracking-unsynchronised.txt')), null);
    assert.equal(timesyncdOffsetMs(recorded('timedatectl-timesync-status-waiting.txt')), null);
    const waiting = toolsAnswering({
      'chronyc tracking': { stdout: recorded('chronyc-tracking-unsynchronised.txt') },
      'timedatectl timesync-status': { stdout: recorded('timedatectl-timesync-status-waiting.txt') },
    });
    assert.deepEqual(await clockCollector(waiting.run)(), []);
    // timedatectl where systemd is not PID 1 exits 1 ("System has not been booted with systemd")
    const noSystemd = toolsAnswering({ 'timedatectl timesync-status': { code: 1, stdout: '' } });
    assert.deepEqual(await clockCollector(noSystemd.run)(), []);
  });
});

describe('costly tools run at most every so often', () => {
  it('lets the service’s first report wait a bounded time for a slow tool, then carries its answer', async () => {
    let finish: (samples: ReturnType<typeof sample>[]) => void = () => {};
    const collect = atMostEvery(60_000, () => new Promise((resolve) => (finish = resolve)), { firstWaitMs: 20 });
    assert.deepEqual(await collect(), [], 'not answered within 20 ms: the report goes without it');
    finish([sample('updates.security', 3)]);
    await collect.settled();
    assert.deepEqual(await collect(), [sample('updates.security', 3)], 'the next report has it');
  });

  it('waits for the first answer, repeats it in between, and asks again when due or when its input changed', async () => {
    let now = 0;
    let key = 'a';
    let runs = 0;
    const collect = atMostEvery(60_000, async () => [sample('updates.security', ++runs)], {
      now: () => now,
      changed: async () => key,
    });
    assert.deepEqual(await collect(), [sample('updates.security', 1)], 'the first report has it');
    now = 59_999;
    assert.deepEqual(await collect(), [sample('updates.security', 1)], 'the last answer, carried');
    assert.equal(runs, 1);
    key = 'b';
    await collect();
    await collect.settled();
    assert.deepEqual(await collect(), [sample('updates.security', 2)], 'the package database changed');
    now = 59_999 + 60_000;
    await collect();
    await collect.settled();
    assert.deepEqual(await collect(), [sample('updates.security', 3)], 'its time came');
  });

  it('holds no report back while a slow tool runs again', async () => {
    let now = 0;
    let finish: (samples: ReturnType<typeof sample>[]) => void = () => {};
    let runs = 0;
    const collect = atMostEvery(
      60_000,
      () => {
        runs += 1;
        return runs === 1
          ? Promise.resolve([sample('time.offset_ms', 1)])
          : new Promise((resolve) => (finish = resolve));
      },
      { now: () => now },
    );
    await collect();
    now = 60_000;
    assert.deepEqual(await collect(), [sample('time.offset_ms', 1)], 'answered at once with the last samples');
    assert.deepEqual(await collect(), [sample('time.offset_ms', 1)], 'not started twice');
    assert.equal(runs, 2);
    finish([sample('time.offset_ms', 2)]);
    await collect.settled();
    assert.deepEqual(await collect(), [sample('time.offset_ms', 2)]);
  });
});
