/**
 * Every metric the 44 default rules read (db/default-rules.ts) and every event type the default
 * event rule waits for is produced by some collector of the agent: the collectors run on the
 * recorded hosts with every host tool answering as recorded (fixtures/tools) and with settings that
 * ask to watch a service, a certificate, a backup and a process. A rule with nothing to feed it
 * fails here. The container metrics come from a container engine, which a recorded host has not:
 * containers.test.ts reads each of them from the real engine.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { DEFAULT_ALERT_RULES, DEFAULT_EVENT_RULES } from '../../db/default-rules.js';
import type { RunTool } from '../src/run-tool.js';
import { collectTwoLooks } from './fixture-host.js';

const tools = new URL('./fixtures/tools/', import.meta.url);
const recorded = (name: string) => readFileSync(new URL(name, tools), 'utf8');

/** A host with systemd, smartmontools, chrony and apt, each answering as recorded. */
const everyTool: RunTool = async (file, args) => {
  const command = [file, ...args].join(' ');
  if (command === 'systemctl list-units --state=failed --no-legend --plain')
    return { code: 0, stdout: 'backup.service loaded failed failed Nightly backup\n' };
  if (command === 'systemctl is-active nginx') return { code: 0, stdout: 'active\n' };
  if (command === 'smartctl --scan -j') return { code: 0, stdout: recorded('smartctl-scan.json') };
  if (command === 'smartctl -H -j -n standby -d sat /dev/sda')
    return { code: 0, stdout: recorded('smartctl-H-passed.json') };
  if (command === 'chronyc tracking') return { code: 0, stdout: recorded('chronyc-tracking.txt') };
  if (file === 'apt-get') return { code: 0, stdout: recorded('apt-get-s-dist-upgrade.debian12.txt') };
  return null;
};

/** What containers.test.ts asserts the collector reads from the real engine. */
const FROM_THE_ENGINE = [
  'container.exited_unexpectedly',
  'container.healthy',
  'container.restarts_recent',
  'container.cpu_pct',
  'container.mem_pct',
];

async function metricsOf(fixture: string): Promise<string[]> {
  const certificate = new URL('watched-cert.pem', tools).pathname;
  const settings = { services: 'nginx', certs: certificate, 'backup.nightly': certificate, processes: 'nginx' };
  const samples = await collectTwoLooks(fixture, { runTool: everyTool, settings: () => settings });
  return samples.map((metric) => metric.name);
}

describe('what the default rules read', () => {
  it('has a collector for every metric of the 44 default rules', async () => {
    const produced = new Set((await Promise.all(['x86_64-vm', 'aarch64-pi', 'container'].map(metricsOf))).flat());
    for (const metric of FROM_THE_ENGINE) produced.add(metric);
    const read = DEFAULT_ALERT_RULES.flatMap((rule) => (rule.metric ? [rule.metric] : []));
    assert.equal(DEFAULT_ALERT_RULES.length, 44);
    assert.equal(read.length, 43, 'all but the offline rule read a metric');
    assert.deepEqual(
      [...new Set(read)].filter((metric) => !produced.has(metric)),
      [],
      'metrics no collector produces',
    );
  });

  it('sends the event type of the default event rule', () => {
    const sent = new Set(['system.reboot', 'service.failed', 'mem.oom_kill']); // events.ts, journal.ts
    for (const rule of DEFAULT_EVENT_RULES) if (rule.eventType) assert.ok(sent.has(rule.eventType), rule.eventType);
  });
});
