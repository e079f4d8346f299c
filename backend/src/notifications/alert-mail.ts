/** The e-mail of one alert transition: subject and plain-text body, with the console link from AUTH_URL. */
import type { OutgoingMail } from '../mail/mailer.js';
import type { NotificationEvent } from '../channels/payloads.js';
import type { DueNotification } from './repo.js';
import { INSTANT_IN_TEXT, zonedStamp } from '../../../contracts/zoned-time.js';

/** An instant on the customer's clock ("28 Nov 2026, 11:14 CET"). */
const at = (n: DueNotification, date: Date) => zonedStamp(date.getTime(), n.customerTimeZone);

/** The message with the instants the server wrote in it on the customer's clock ("No report since 28 Nov 2026, 11:14 CET"). */
const messageText = (n: DueNotification) =>
  n.message.replace(INSTANT_IN_TEXT, (instant) => zonedStamp(Date.parse(instant), n.customerTimeZone));

export function alertLink(authUrl: string, alertId: number): string {
  return `${authUrl}/alerts/${alertId}`;
}

function formatValue(value: number | null): string {
  if (value === null) return '—';
  return Number.isInteger(value) ? String(value) : value.toFixed(2).replace(/\.?0+$/, '');
}

const SUBJECT: Record<NotificationEvent, (severity: string) => string> = {
  raised: (severity) => severity,
  resolved: () => 'Resolved',
  acknowledged: () => 'Acknowledged',
  repeat: (severity) => `Still open: ${severity}`,
  escalated: (severity) => `Escalated: ${severity}`,
  flapping: (severity) => `Flapping: ${severity}`,
};

const OPENING: Record<NotificationEvent, (severity: string) => string> = {
  raised: (severity) => `An alert was raised (${severity}).`,
  resolved: (severity) => `An alert was resolved (it was ${severity}).`,
  acknowledged: (severity) => `An alert (${severity}) was acknowledged; it stays open until its condition clears.`,
  repeat: (severity) => `An alert (${severity}) is still open and nobody has acknowledged it.`,
  escalated: (severity) => `An alert (${severity}) has been open and unacknowledged too long: it is escalated to you.`,
  flapping: (severity) => `An alert (${severity}) keeps raising and resolving.`,
};

/** A cluster incident: one mail for a site that went dark, naming how many systems it groups. */
function incidentMail(n: DueNotification, incident: NonNullable<DueNotification['incident']>, authUrl: string) {
  const what = `${incident.title} (${incident.systems} systems offline)`;
  const subject = n.kind === 'resolved' ? `[Argus] Resolved: ${what}` : `[Argus] ${n.severity}: ${what}`;
  const fleet = incident.clusterId === null;
  const lines = [
    n.kind === 'resolved'
      ? `The incident is resolved: every system of the ${fleet ? 'incident' : 'cluster'} is back.`
      : fleet
        ? `More than half of the systems stopped reporting at once: most likely Argus's own network, proxy or ingest path failed, not the systems. Each customer's cluster incidents are notified as usual.`
        : `At least half of the cluster's systems stopped reporting at once: one incident instead of one alert each.`,
    '',
    ...(fleet ? [] : [`Customer: ${n.customerName}`]),
    `Systems:  ${incident.systems} (first: ${n.systemName})`,
    `Since:    ${at(n, n.startedAt)}`,
    '',
    `Open it in Argus: ${alertLink(authUrl, n.alertId)}`,
    '',
  ];
  return { to: n.email, subject, text: lines.join('\n') };
}

export function alertMail(n: DueNotification, authUrl: string): OutgoingMail {
  if (n.incident) return incidentMail(n, n.incident, authUrl);
  const system = n.hostname && n.hostname !== n.systemName ? `${n.systemName} (${n.hostname})` : n.systemName;
  const what = `${n.ruleName}${n.instance ? ` [${n.instance}]` : ''} on ${n.systemName}`;
  const subject = `[Argus] ${SUBJECT[n.kind](n.severity)}: ${what}`;
  const lines = [
    OPENING[n.kind](n.severity),
    '',
    `System:   ${system}`,
    `Customer: ${n.customerName}`,
    `Rule:     ${n.ruleName} (${n.ruleKey})`,
    ...(n.instance ? [`Instance: ${n.instance}`] : []),
    `Value:    ${formatValue(n.value)}`,
    `Message:  ${messageText(n)}`,
    `Raised:   ${at(n, n.startedAt)}`,
    ...(n.resolvedAt ? [`Resolved: ${at(n, n.resolvedAt)}`] : []),
    '',
    `Open it in Argus: ${alertLink(authUrl, n.alertId)}`,
    '',
    'You receive this because your account may see this system and its minimum notification',
    'severity allows it (Account settings).',
    '',
  ];
  return { to: n.email, subject, text: lines.join('\n') };
}
