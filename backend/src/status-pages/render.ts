/**
 * The public status page as HTML: server-rendered, no script, one inline style
 * sheet allowed by its hash in the page's Content-Security-Policy. Everything written into the page
 * is escaped; the colours meet WCAG AA in the light and the dark scheme, and every colour comes with
 * words (a state's name, a bar's summary).
 */
import { createHash } from 'node:crypto';
import type { DayBar, PublicItem, PublicState, PublicView } from './public-view.js';

const STATE_TEXT: Record<PublicState, string> = {
  operational: 'Operational',
  degraded: 'Degraded',
  outage: 'Outage',
  maintenance: 'Under maintenance',
  unknown: 'No data yet',
  standby: 'Standby',
};

const BANNER: Record<PublicState, string> = {
  operational: 'All systems operational',
  degraded: 'Some systems are degraded',
  outage: 'Outage in progress',
  maintenance: 'Maintenance in progress',
  unknown: 'Status not known yet',
  standby: 'All systems on standby',
};

const STYLE = `
:root{color-scheme:light dark;--bg:#fff;--card:#f6f8fa;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;
--operational:#1a7f37;--degraded:#9a6700;--outage:#cf222e;--maintenance:#0969da;--unknown:#59636e;--standby:#59636e;
--good:#1a7f37;--minor:#9a6700;--major:#cf222e;--none:#6e7781}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--card:#161b22;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;
--operational:#3fb950;--degraded:#d29922;--outage:#f85149;--maintenance:#4493f8;--unknown:#9198a1;--standby:#9198a1;
--good:#3fb950;--minor:#d29922;--major:#f85149;--none:#6e7681}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:880px;margin:0 auto;padding:24px 16px 48px}
h1{font-size:1.75rem;margin:0 0 16px;overflow-wrap:anywhere}
h2{font-size:1.25rem;margin:32px 0 12px}
h3{font-size:1rem;margin:0;overflow-wrap:anywhere}
p{margin:0 0 8px}
ul{list-style:none;margin:0;padding:0}
.banner,.card{border:1px solid var(--line);border-radius:8px;background:var(--card);padding:12px 16px}
.banner{border-left:6px solid var(--accent);font-weight:600;font-size:1.125rem}
.card{margin-bottom:12px}
.head{display:flex;flex-wrap:wrap;justify-content:space-between;gap:4px 16px;align-items:baseline}
.state{font-weight:600;color:var(--accent)}
.operational{--accent:var(--operational)}.degraded{--accent:var(--degraded)}.outage{--accent:var(--outage)}
.maintenance{--accent:var(--maintenance)}.unknown{--accent:var(--unknown)}.standby{--accent:var(--standby)}
.muted{color:var(--muted);font-size:.875rem}
.bars{display:flex;gap:1px;height:32px;margin:8px 0 4px}
.bars span{flex:1 1 0;min-width:0;border-radius:1px;background:var(--none)}
.bars .good{background:var(--good)}.bars .minor{background:var(--minor)}.bars .major{background:var(--major)}
.scale{display:flex;justify-content:space-between;gap:8px}
.legend{display:flex;flex-wrap:wrap;gap:4px 16px;margin-top:8px}
.legend span::before{content:"";display:inline-block;width:.75em;height:.75em;margin-right:.35em;border-radius:2px;background:var(--swatch)}
.legend .good{--swatch:var(--good)}.legend .minor{--swatch:var(--minor)}.legend .major{--swatch:var(--major)}.legend .none{--swatch:var(--none)}
.announcement{white-space:pre-line;overflow-wrap:anywhere}
footer{margin-top:32px}
`;

/** For the page's Content-Security-Policy: the one style the page carries, allowed by its hash. */
export const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ENTITIES[c] as string);

const percent = (value: number): string => `${(Math.floor(value * 100) / 100).toFixed(2)} %`;

function dayLevel(day: DayBar): 'good' | 'minor' | 'major' | 'none' {
  if (day.availability === null) return 'none';
  if (day.availability >= 99.9) return 'good';
  return day.availability >= 99 ? 'minor' : 'major';
}

function dayText(day: DayBar): string {
  if (day.availability === null) return `${day.date}: no data`;
  const parts = [`${day.date}: ${percent(day.availability)} available`];
  if (day.downMinutes > 0) parts.push(`${day.downMinutes} min down`);
  if (day.maintenanceMinutes > 0) parts.push(`${day.maintenanceMinutes} min maintenance`);
  return parts.join(', ');
}

function bars(item: PublicItem): string {
  const troubled = item.days.filter((d) => d.availability !== null && d.availability < 99.9);
  const summary =
    `Availability per day over the last ${item.days.length} days: ` +
    (item.availability === null ? 'no data' : percent(item.availability)) +
    (troubled.length === 0
      ? '; no day below 99.9 %.'
      : `; ${troubled.length} day${troubled.length === 1 ? '' : 's'} below 99.9 %: ${troubled.map(dayText).join('; ')}.`);
  const spans = item.days.map((d) => `<span class="${dayLevel(d)}" title="${escapeHtml(dayText(d))}"></span>`).join('');
  return `<div class="bars" role="img" aria-label="${escapeHtml(summary)}">${spans}</div>
<p class="scale muted"><span>${item.days.length} days ago</span><span>${
    item.availability === null ? 'No data' : `${percent(item.availability)} available`
  }</span><span>Today</span></p>`;
}

function itemCard(item: PublicItem): string {
  return `<li class="card ${item.state}"><div class="head"><h3>${escapeHtml(item.name)}</h3><span class="state">${
    STATE_TEXT[item.state]
  }</span></div>${item.detail ? `<p class="muted">${escapeHtml(item.detail)}</p>` : ''}${bars(item)}</li>`;
}

function when(ms: number, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone, dateStyle: 'medium', timeStyle: 'short' }).format(ms);
}

const affects = (names: string[]): string =>
  names.length === 0 ? 'Systems not listed on this page' : names.map(escapeHtml).join(', ');

function document(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow"><meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>
`;
}

export function renderStatusPage(view: PublicView): string {
  const zone = escapeHtml(view.timeZone);
  const sections: string[] = [
    `<h1>${escapeHtml(view.title)}</h1>`,
    `<p class="banner ${view.state}" role="status">${BANNER[view.state]}</p>`,
  ];
  if (view.announcement)
    sections.push(
      `<section aria-labelledby="announcement"><h2 id="announcement">Announcement</h2><div class="card announcement">${escapeHtml(view.announcement)}</div></section>`,
    );
  sections.push(
    `<section aria-labelledby="incidents"><h2 id="incidents">Open incidents</h2>${
      view.incidents.length === 0
        ? '<p>No open incidents.</p>'
        : `<ul>${view.incidents
            .map(
              (i) =>
                `<li class="card outage"><p class="state">Outage</p><p>Affects: ${affects(i.affects)}</p><p class="muted">Since ${when(i.startedAt, view.timeZone)} (${zone})</p></li>`,
            )
            .join('')}</ul>`
    }</section>`,
    `<section aria-labelledby="systems"><h2 id="systems">Current status</h2><ul>${view.items.map(itemCard).join('')}</ul>
<p class="legend muted"><span class="good">99.9 % or more</span><span class="minor">99 % to 99.9 %</span><span class="major">below 99 %</span><span class="none">no data</span></p>
<p class="muted">${escapeHtml(view.countedAsDown)}</p></section>`,
    `<section aria-labelledby="maintenance"><h2 id="maintenance">Maintenance</h2>${
      view.maintenance.length === 0
        ? '<p>No maintenance planned in the next 14 days.</p>'
        : `<ul>${view.maintenance
            .map(
              (m) =>
                `<li class="card maintenance"><p class="state">${m.active ? 'In progress' : 'Planned'}</p><p>Affects: ${affects(m.affects)}</p><p class="muted">${when(m.startsAt, view.timeZone)} to ${when(m.endsAt, view.timeZone)} (${zone})</p></li>`,
            )
            .join('')}</ul>`
    }</section>`,
    `<footer class="muted"><p>Updated ${when(view.generatedAt, view.timeZone)} (${zone}); this page refreshes its figures every 30 seconds when reloaded.</p></footer>`,
  );
  return document(view.title, sections.join('\n'));
}

/** The same answer for a slug that never existed and one revoked: nothing about either. */
export function renderNotFound(): string {
  return document('Page not found', '<h1>Page not found</h1><p>There is no status page at this address.</p>');
}

export function renderBusy(retryAfterSeconds: number): string {
  return document(
    'Too many requests',
    `<h1>Too many requests</h1><p>Please try again in ${retryAfterSeconds} seconds.</p>`,
  );
}

export function renderUnavailable(): string {
  return document('Temporarily unavailable', '<h1>Temporarily unavailable</h1><p>Please try again shortly.</p>');
}
