/**
 * The report as people read it: durations, percentages and local times the same way in the CSV,
 * the PDF and the e-mail.
 */
import type { AvailabilityReport } from '../../../contracts/reports.js';

const MINUTE = 60_000;

/** "3 d 4 h 5 min", "45 min", "0 min"; seconds are dropped (an outage shorter than a minute shows as 0 min). */
export function formatDuration(ms: number): string {
  const minutes = Math.floor(ms / MINUTE);
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const rest = minutes % 60;
  const parts = [days ? `${days} d` : '', hours ? `${hours} h` : '', rest || (!days && !hours) ? `${rest} min` : ''];
  return parts.filter(Boolean).join(' ');
}

/** 99.958 % with three decimals, never rounded up to 100 % while anything was down. */
export function formatAvailability(value: number | null): string {
  if (value === null) return 'n/a';
  const floored = Math.floor(value * 1000) / 1000;
  return `${floored.toFixed(3)} %`;
}

/** An instant as the customer reads it: "2026-10-25 02:30" in their zone. */
export function formatLocal(iso: string, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    })
      .formatToParts(new Date(iso))
      .map((part) => [part.type, part.value]),
  );
  return `${parts['year']}-${parts['month']}-${parts['day']} ${parts['hour']}:${parts['minute']}`;
}

/**
 * What counted as down, in one sentence (the PDF, the e-mail and the status pages say it the same way):
 * a system offline always, and the open alerts of the rules that count as downtime.
 */
export function countedAsDown(rules: ReadonlyArray<{ key: string; name: string }>): string {
  const others = rules.filter((rule) => rule.key !== 'system.offline').map((rule) => rule.name);
  return (
    'Counted as down: a system offline' +
    (others.length ? `, or an open alert of ${others.join(', ')}` : '') +
    '. Other alerts are not downtime.'
  );
}

/** "2026-10-01 to 2026-10-31 (Europe/Berlin)". */
export const periodLabel = (report: AvailabilityReport): string =>
  `${report.fromDate} to ${report.toDate} (${report.customer.timeZone})`;

/** A file name for downloads and attachments: customer and days, nothing a header could choke on. */
export function reportFileName(report: AvailabilityReport, extension: string): string {
  const customer = report.customer.name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60);
  return `availability-${customer || report.customer.id}-${report.fromDate}-${report.toDate}.${extension}`;
}
