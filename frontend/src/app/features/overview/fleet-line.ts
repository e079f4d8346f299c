import type { Overview } from './overview-api';

export interface FleetLine {
  /** ok: every system up and no alert open; down: a system offline or a critical alert; else alerting. */
  tone: 'ok' | 'alerting' | 'down';
  text: string;
}

const systems = (n: number) => `${n} ${n === 1 ? 'system' : 'systems'}`;

/**
 * The Overview's first line: how the monitored fleet is, in one sentence ("10 of 11 systems offline,
 * 1 critical · 12 alerts open, 10 critical"). Argus's own health is a separate line, named as such.
 */
export function fleetLine({ totals }: Pick<Overview, 'totals'>): FleetLine {
  const { byStatus, openAlerts, systems: total } = totals;
  if (total === 0) return { tone: 'ok', text: 'No systems monitored yet.' };
  const troubled = [
    [byStatus.OFFLINE, 'offline'],
    [byStatus.CRITICAL, 'critical'],
    [byStatus.WARNING, 'in warning'],
  ].filter(([count]) => Number(count) > 0);
  const alerts = openAlerts.critical + openAlerts.warning + openAlerts.info;
  if (troubled.length === 0 && alerts === 0) return { tone: 'ok', text: `All ${systems(total)} up, no alert open.` };

  const parts: string[] = [];
  if (troubled.length > 0) {
    const [[first, firstWord], ...rest] = troubled as [number, string][];
    parts.push([`${first} of ${systems(total)} ${firstWord}`, ...rest.map(([n, word]) => `${n} ${word}`)].join(', '));
  }
  if (alerts > 0) {
    const critical = openAlerts.critical > 0 ? `, ${openAlerts.critical} critical` : '';
    parts.push(`${alerts} ${alerts === 1 ? 'alert' : 'alerts'} open${critical}`);
  } else parts.push('no alert open');
  const down = byStatus.OFFLINE > 0 || openAlerts.critical > 0;
  return { tone: down ? 'down' : 'alerting', text: parts.join(' · ') };
}
