/**
 * What each channel type receives for one event: the generic webhook gets the documented JSON
 * (docs/api.md "Webhook contract"); Slack, Teams, Discord and ntfy get the body their incoming
 * webhooks expect, with the same facts in a line of text and a link to the alert.
 */
import type { ChannelType, Severity } from './schema.js';

export const NOTIFICATION_EVENTS = ['raised', 'resolved', 'acknowledged', 'repeat', 'escalated', 'flapping'] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];
/** "Send test" uses its own event so receivers can tell it from a real alert. */
export type SentEvent = NotificationEvent | 'test';

export interface NotificationFacts {
  event: SentEvent;
  alert: {
    id: number;
    ruleKey: string;
    ruleName: string;
    severity: Severity;
    state: 'open' | 'resolved';
    instance: string;
    value: number | null;
    message: string;
    startedAt: string;
    resolvedAt: string | null;
    acknowledgedAt: string | null;
    ackUntil: string | null;
  };
  system: { id: number; name: string; hostname: string };
  customer: { id: number; name: string };
  /** The alert in the console ({AUTH_URL}/alerts/<id>). */
  url: string;
  /**
   * Set when the event is about a cluster incident ("Site down: <cluster>"): `alert` is then its
   * first offline alert, and `systems` how many systems it groups.
   */
  incident?: {
    id: number;
    title: string;
    state: 'open' | 'resolved';
    clusterId: number | null;
    systems: number;
  } | null;
}

const HEADLINE: Record<SentEvent, string> = {
  raised: 'Alert raised',
  resolved: 'Resolved',
  acknowledged: 'Acknowledged',
  repeat: 'Still open',
  escalated: 'Escalated: unacknowledged',
  flapping: 'Flapping',
  test: 'Test notification from Argus',
};

/** One line a person reads on a phone: what, where, how bad. */
export function summary(facts: NotificationFacts): string {
  const { alert, system, customer, incident } = facts;
  if (incident) {
    // the fleet incident (no cluster) is about no one customer
    const where = incident.clusterId === null ? '' : ` (${customer.name})`;
    const what = `${incident.title} — ${incident.systems} systems offline${where}`;
    return facts.event === 'resolved' ? `Resolved — ${what}` : `${alert.severity}: ${what}`;
  }
  const instance = alert.instance ? ` [${alert.instance}]` : '';
  return `${HEADLINE[facts.event]} — ${alert.severity}: ${alert.ruleName}${instance} on ${system.name} (${customer.name})`;
}

function details(facts: NotificationFacts): string {
  const lines = [facts.alert.message];
  if (facts.alert.value !== null) lines.push(`Value: ${facts.alert.value}`);
  if (facts.alert.ackUntil) lines.push(`Acknowledged until ${facts.alert.ackUntil}`);
  return lines.filter(Boolean).join('\n');
}

const NTFY_PRIORITY: Record<Severity, number> = { INFO: 3, WARNING: 4, CRITICAL: 5 };

/** The URL and JSON body for one channel type; ntfy's JSON goes to the server root with the topic inside. */
export function channelRequest(type: Exclude<ChannelType, 'email'>, target: string, facts: NotificationFacts) {
  const text = summary(facts);
  switch (type) {
    case 'webhook':
      return { url: target, body: facts };
    case 'slack':
      return { url: target, body: { text: `${text}\n${details(facts)}\n<${facts.url}|Open in Argus>` } };
    case 'discord':
      // Discord refuses content over 2,000 characters
      return { url: target, body: { content: `${text}\n${details(facts)}\n${facts.url}`.slice(0, 2000) } };
    case 'teams':
      return {
        url: target,
        body: {
          type: 'message',
          attachments: [
            {
              contentType: 'application/vnd.microsoft.card.adaptive',
              content: {
                type: 'AdaptiveCard',
                $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
                version: '1.4',
                body: [
                  { type: 'TextBlock', text, weight: 'Bolder', wrap: true },
                  { type: 'TextBlock', text: details(facts), wrap: true },
                ],
                actions: [{ type: 'Action.OpenUrl', title: 'Open in Argus', url: facts.url }],
              },
            },
          ],
        },
      };
    case 'ntfy': {
      // https://ntfy.example/alerts or, self-hosted under a path, https://example/ntfy/alerts
      const url = new URL(target);
      const segments = url.pathname.split('/').filter(Boolean);
      const topic = segments.pop() ?? '';
      return {
        url: `${url.origin}/${segments.map((s) => `${s}/`).join('')}`,
        body: {
          topic,
          title: text,
          message: details(facts) || text,
          priority: NTFY_PRIORITY[facts.alert.severity],
          tags: [facts.event === 'resolved' ? 'white_check_mark' : 'warning'],
          click: facts.url,
        },
      };
    }
  }
}

/** The e-mail of an event to a channel's addresses. */
export function channelMail(facts: NotificationFacts): { subject: string; text: string } {
  return {
    subject: `[Argus] ${summary(facts)}`,
    text: [summary(facts), '', details(facts), '', `Open it in Argus: ${facts.url}`, ''].join('\n'),
  };
}
