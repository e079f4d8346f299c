import { Channel, DeliveryLogEntry, Policy } from './notifications-api';

/** A global, enabled Slack channel without a secret, for specs. */
export function channelBody(overrides: Partial<Channel> = {}): Channel {
  return {
    id: 1,
    name: 'Ops Slack',
    type: 'slack',
    customerId: null,
    customerName: null,
    target: null,
    targetHint: 'https://hooks.slack.com/…',
    hasSecret: false,
    minSeverity: 'INFO',
    enabled: true,
    createdAt: '2026-11-20T10:00:00.000Z',
    updatedAt: '2026-11-20T10:00:00.000Z',
    ...overrides,
  };
}

/** The global policy routing INFO and up to channel 1, without repeat or escalation, for specs. */
export function policyBody(overrides: Partial<Policy> = {}): Policy {
  return {
    customerId: null,
    customerName: null,
    custom: true,
    routes: [{ minSeverity: 'INFO', channelIds: [1] }],
    repeatMinutes: null,
    escalateAfterMinutes: null,
    escalateChannelIds: [],
    updatedAt: '2026-11-20T10:00:00.000Z',
    ...overrides,
  };
}

/** A `raised` event sent to channel 1 on the first attempt, for specs. */
export function deliveryBody(overrides: Partial<DeliveryLogEntry> = {}): DeliveryLogEntry {
  return {
    id: 1,
    channel: { id: 1, name: 'Ops Slack', type: 'slack' },
    event: 'raised',
    status: 'sent',
    attempts: 1,
    lastStatus: 200,
    lastError: null,
    recipient: null,
    createdAt: new Date(Date.now() - 4 * 60_000).toISOString(),
    lastAttemptAt: new Date(Date.now() - 4 * 60_000).toISOString(),
    sentAt: new Date(Date.now() - 4 * 60_000).toISOString(),
    attemptLog: [{ at: new Date(Date.now() - 4 * 60_000).toISOString(), status: 200, error: null }],
    ...overrides,
  };
}
