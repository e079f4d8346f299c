/**
 * What a public status page shows, computed from the page's items and the
 * customer's systems, incidents, maintenance windows and daily availability. Only display names
 * chosen by the page's editor leave this module: never a system's own name, hostname, address,
 * alert text, incident title (it names the cluster) or maintenance window name.
 */
import type { Stats } from '../reports/availability.js';
import { combine } from '../reports/availability.js';
import { countedAsDown } from '../reports/render-text.js';
import type { ReportWindow } from '../reports/repo.js';
import { windowApplies as covers } from '../reports/service.js';
import { windowCovers, windowOccurrences } from '../maintenance/schedule.js';
import type { PublicSystemRow, PublishedPage } from './repo.js';

export type PublicState = 'operational' | 'degraded' | 'outage' | 'maintenance' | 'unknown' | 'standby';

/** Worst first: a cluster shows the worst state of its systems, the page's banner the worst item. */
const SEVERITY: readonly PublicState[] = ['outage', 'degraded', 'maintenance', 'unknown', 'operational', 'standby'];
const worst = (states: PublicState[]): PublicState =>
  states.reduce<PublicState>((a, b) => (SEVERITY.indexOf(b) < SEVERITY.indexOf(a) ? b : a), 'standby');

const FROM_STATUS: Record<string, PublicState> = {
  ONLINE: 'operational',
  WARNING: 'degraded',
  CRITICAL: 'outage',
  OFFLINE: 'outage',
  PENDING: 'unknown',
  STANDBY: 'standby',
};

export interface DayBar {
  date: string;
  /** Percent of the monitored time; null when nothing was monitored that day. */
  availability: number | null;
  downMinutes: number;
  maintenanceMinutes: number;
}

export interface PublicItem {
  name: string;
  state: PublicState;
  /** For a cluster: how many of its systems are operational. */
  detail: string | null;
  days: DayBar[];
  /** Over all the days shown. */
  availability: number | null;
}

export interface PublicView {
  title: string;
  announcement: string;
  timeZone: string;
  generatedAt: number;
  state: PublicState;
  items: PublicItem[];
  incidents: Array<{ affects: string[]; startedAt: number }>;
  maintenance: Array<{ affects: string[]; startsAt: number; endsAt: number; active: boolean }>;
  /** What the bars count as down, in one sentence. */
  countedAsDown: string;
}

export interface PublicFacts {
  page: PublishedPage;
  now: number;
  timeZone: string;
  dates: string[];
  systems: Array<PublicSystemRow & { days: Stats[] }>;
  windows: ReportWindow[];
  incidents: Array<{ clusterId: number; startedAt: Date }>;
  /** The rules whose alerts count as downtime (a system offline always does). */
  downtimeRules: ReadonlyArray<{ key: string; name: string }>;
}

/** How far ahead announced maintenance reaches. */
export const MAINTENANCE_AHEAD_MS = 14 * 86_400_000;
const MINUTE = 60_000;

export function publicView(facts: PublicFacts): PublicView {
  const { page, now, timeZone } = facts;
  const at = new Date(now);
  const inMaintenance = (system: { id: number; clusterId: number | null }) =>
    facts.windows.some((w) => covers(w, system) && windowCovers(w.schedule, at, timeZone));
  const stateOf = (system: PublicSystemRow): PublicState =>
    inMaintenance(system) ? 'maintenance' : (FROM_STATUS[system.status] ?? 'unknown');
  const membersOf = (item: PublishedPage['items'][number]) =>
    facts.systems.filter((s) => (item.kind === 'system' ? s.id === item.id : s.clusterId === item.id));

  const items = page.items.map((item): PublicItem => {
    const members = membersOf(item);
    const states = members.map(stateOf);
    const days = facts.dates.map((date, i): DayBar => {
      const stats = combine(members.map((m) => m.days[i] as Stats));
      return {
        date,
        availability: stats.availability,
        downMinutes: Math.round(stats.downMs / MINUTE),
        maintenanceMinutes: Math.round(stats.maintenanceMs / MINUTE),
      };
    });
    const operational = states.filter((s) => s === 'operational').length;
    return {
      name: item.displayName,
      state: members.length === 0 ? 'unknown' : worst(states),
      detail: item.kind === 'cluster' ? `${operational} of ${members.length} operational` : null,
      days,
      availability: combine(members.flatMap((m) => m.days)).availability,
    };
  });

  // which of the page's items a cluster or system touches: what incidents and windows are shown by
  const affected = (touches: (system: { id: number; clusterId: number | null }) => boolean): string[] =>
    page.items.filter((item) => membersOf(item).some(touches)).map((item) => item.displayName);

  const incidents = facts.incidents.map((incident) => ({
    affects: affected((s) => s.clusterId === incident.clusterId),
    startedAt: incident.startedAt.getTime(),
  }));

  const maintenance = facts.windows
    .flatMap((window) => {
      const next = windowOccurrences(window.schedule, now, now + MAINTENANCE_AHEAD_MS, timeZone)[0];
      if (!next) return [];
      const affects = window.scopeType === 'customer' ? ['All services'] : affected((s) => covers(window, s));
      // a window that touches nothing on this page is not this page's business
      if (affects.length === 0) return [];
      return [{ affects, startsAt: next[0], endsAt: next[1], active: next[0] <= now }];
    })
    .sort((a, b) => a.startsAt - b.startsAt);

  return {
    title: page.title,
    announcement: page.announcement,
    timeZone,
    generatedAt: now,
    state: items.length === 0 ? 'unknown' : worst(items.map((i) => i.state)),
    items,
    incidents,
    maintenance,
    countedAsDown: countedAsDown(facts.downtimeRules),
  };
}
