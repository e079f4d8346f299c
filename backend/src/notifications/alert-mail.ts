/** The e-mail of one alert transition: subject and plain-text body, with the console link from AUTH_URL. */
import type { OutgoingMail } from '../mail/mailer.js';
import type { DueNotification } from './repo.js';

export function alertLink(authUrl: string, alertId: number): string {
  return `${authUrl}/alerts/${alertId}`;
}

function formatValue(value: number | null): string {
  if (value === null) return '—';
  return Number.isInteger(value) ? String(value) : value.toFixed(2).replace(/\.?0+$/, '');
}

export function alertMail(n: DueNotification, authUrl: string): OutgoingMail {
  const system = n.hostname && n.hostname !== n.systemName ? `${n.systemName} (${n.hostname})` : n.systemName;
  const what = `${n.ruleName}${n.instance ? ` [${n.instance}]` : ''} on ${n.systemName}`;
  const subject = n.kind === 'raised' ? `[Argus] ${n.severity}: ${what}` : `[Argus] Resolved: ${what}`;
  const lines = [
    n.kind === 'raised' ? `An alert was raised (${n.severity}).` : `An alert was resolved (it was ${n.severity}).`,
    '',
    `System:   ${system}`,
    `Customer: ${n.customerName}`,
    `Rule:     ${n.ruleName} (${n.ruleKey})`,
    ...(n.instance ? [`Instance: ${n.instance}`] : []),
    `Value:    ${formatValue(n.value)}`,
    `Message:  ${n.message}`,
    `Raised:   ${n.startedAt.toISOString()}`,
    ...(n.resolvedAt ? [`Resolved: ${n.resolvedAt.toISOString()}`] : []),
    '',
    `Open it in Argus: ${alertLink(authUrl, n.alertId)}`,
    '',
    'You receive this because your account may see this system and its minimum notification',
    'severity allows it (Account settings).',
    '',
  ];
  return { to: n.email, subject, text: lines.join('\n') };
}
