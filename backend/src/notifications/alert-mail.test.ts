import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { zonedStamp } from '../../../contracts/zoned-time.js';
import { alertMail } from './alert-mail.js';
import type { DueNotification } from './repo.js';

const offline: DueNotification = {
  id: 1,
  attempts: 0,
  kind: 'raised',
  email: 'ops@example.com',
  alertId: 7,
  ruleKey: 'system.offline',
  ruleName: 'System offline',
  severity: 'CRITICAL',
  instance: '',
  value: 180,
  message: 'No report since 2026-11-28T10:14:44.479Z',
  startedAt: new Date('2026-11-28T10:17:00Z'),
  resolvedAt: new Date('2026-11-28T11:02:00Z'),
  systemId: 3,
  systemName: 'web-01',
  hostname: 'web-01',
  clusterId: null,
  customerId: 2,
  customerName: 'Acme',
  customerTimeZone: 'America/New_York',
  incident: null,
};

describe('alert e-mail times', () => {
  it("gives the offline time, the raise and the resolve on the customer's clock, naming the zone", () => {
    const { text } = alertMail(offline, 'https://argus.example.com');
    assert.ok(text.includes('Message:  No report since 28 Nov 2026, 05:14 GMT-5'), text);
    assert.ok(text.includes('Raised:   28 Nov 2026, 05:17 GMT-5'), text);
    assert.ok(text.includes('Resolved: 28 Nov 2026, 06:02 GMT-5'), text);
    assert.ok(!text.includes('2026-11-28T'), 'no UTC instant left');
  });

  it('names the zone of the instant (summer time)', () => {
    assert.equal(zonedStamp(Date.parse('2026-07-01T12:00:00Z'), 'Europe/Berlin'), '1 Jul 2026, 14:00 CEST');
    assert.equal(zonedStamp(Date.parse('2026-07-01T12:00:00Z'), 'UTC'), '1 Jul 2026, 12:00 UTC');
  });
});
