/**
 * Alert texts in words from the metric catalogue (contracts/metric-catalogue.ts): labels, units and
 * instances instead of "disk.readonly{/srv} = 1 (== 1)".
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_ALERT_RULES } from '../../../db/default-rules.js';
import { durationText, formatMetricValue, METRICS, metricAlertText } from '../../../contracts/metric-catalogue.js';
import { metricAlertMessage } from './metric-rules.js';
import type { AlertRule } from './types.js';

const ruleOf = (key: string) => {
  const found = DEFAULT_ALERT_RULES.find((r) => r.key === key);
  assert.ok(found, key);
  return { ...found, absolute: found.absolute ?? false } as unknown as AlertRule;
};

describe('alert texts in words', () => {
  it('says what a flag means, with the instance named', () => {
    assert.equal(metricAlertMessage(ruleOf('disk.readonly'), '/srv', 1), 'Filesystem /srv is read-only');
    assert.equal(metricAlertMessage(ruleOf('net.down'), 'eth0', 0), 'Interface eth0 is down');
    assert.equal(metricAlertMessage(ruleOf('disk.smart'), 'sda', 0), 'Disk sda fails its SMART health check');
    assert.equal(metricAlertMessage(ruleOf('reboot.required'), '', 1), 'The system needs a reboot');
  });

  it('gives a threshold alert its label, value and limit with units', () => {
    assert.equal(metricAlertMessage(ruleOf('disk.high'), '/var', 91.25), 'Disk used on /var is 91.3 % (above 85 %)');
    assert.equal(metricAlertMessage(ruleOf('clock.skew'), '', -2500), 'Clock offset is -2,500 ms (beyond ±2,000 ms)');
    assert.equal(
      metricAlertMessage(ruleOf('cert.expiring'), 'example.com', 5),
      'Certificate validity for example.com is 5 days (below 14 days)',
    );
  });

  it('names containers and watched processes in words', () => {
    assert.equal(
      metricAlertMessage(ruleOf('container.exited'), 'web', 1),
      'Container web stopped on its own while it was running',
    );
    assert.equal(metricAlertMessage(ruleOf('container.unhealthy'), 'web', 0), 'Container web is unhealthy');
    assert.equal(
      metricAlertMessage(ruleOf('container.crash_loop'), 'web', 5),
      'Recent container restarts of web is 5 (at or above 3)',
    );
    assert.equal(
      metricAlertMessage(ruleOf('container.memory'), 'db-1', 93.44),
      'Container memory, share of its limit of db-1 is 93.4 % (above 90 %)',
    );
    assert.equal(metricAlertMessage(ruleOf('process.not_running'), 'nginx', 0), 'No process runs that matches nginx');
    assert.equal(formatMetricValue('container.mem_limit_bytes', 64 * 1024 * 1024), '64 MiB');
    assert.equal(formatMetricValue('container.disk_read_bytes_ps', 1536), '1.5 KiB/s');
  });

  it('knows every metric the default rules read', () => {
    for (const rule of DEFAULT_ALERT_RULES) if (rule.metric) assert.ok(METRICS[rule.metric], rule.metric);
  });

  it('formats values by kind: bits per second, durations, unknown metrics as plain numbers', () => {
    assert.equal(formatMetricValue('net.rx_bps', 12_400_000), '12 Mbit/s');
    assert.equal(formatMetricValue('uptime.s', 1_573_200), '18 d 5 h');
    assert.equal(durationText(42), '42 s');
    assert.equal(
      metricAlertText({ metric: 'app.queue', instance: '', value: 7, operator: '>', threshold: 5 }),
      'app.queue is 7 (above 5)',
    );
  });
});
