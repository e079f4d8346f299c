/**
 * The second half of `npm run bench -- console-scale`: the alerts page and the rule preview at the
 * same fleet. Adds open alerts on half the systems and resolved ones, a CPU value
 * for every system, and a rule that fires on all of them, then prints:
 * - GET /api/alerts?state=open (one page) and the rule's preview (GET /api/alert-rules/:id/preview),
 *   server time as the client sees it, and the answer's size;
 * - in Chromium: the alerts page's first alert row, its System filter answering a typed name, and the
 *   rules page's preview of that rule on screen.
 */
import { performance } from 'node:perf_hooks';
import type { Page } from 'playwright-core';
import type { Knex } from 'knex';
import { median } from './statistics.js';

async function timed(label: string, runs: number, action: () => Promise<string | void>): Promise<void> {
  const times: number[] = [];
  let note: string | void = '';
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    note = await action();
    times.push(performance.now() - started);
  }
  console.log(
    `console-scale: ${label}: median ${median(times).toFixed(0)} ms (${times.map((ms) => ms.toFixed(0)).join(', ')})` +
      (note ? `, ${note}` : ''),
  );
}

export async function benchAlertsAndPreview(input: {
  knex: Knex;
  url: string;
  cookie: string;
  page: Page;
  systems: { id: number; name: string }[];
}): Promise<void> {
  const { knex, url, cookie, page, systems } = input;
  const now = Date.now();
  const owners = new Map(
    (await knex('systems').select<{ id: number; customer_id: number }[]>('id', 'customer_id')).map((row) => [
      row.id,
      row.customer_id,
    ]),
  );
  const alertRows = systems.flatMap((system, i) => {
    const base = {
      rule_key: 'cpu.high',
      rule_kind: 'metric',
      system_id: system.id,
      customer_id: owners.get(system.id),
      severity: i % 10 === 0 ? 'CRITICAL' : 'WARNING',
      value: 97,
      message: 'CPU above 90 %',
    };
    const resolved = [1, 2].map((n) => ({
      ...base,
      state: 'resolved',
      instance: `old-${n}`,
      started_at: new Date(now - n * 7_200_000),
      resolved_at: new Date(now - n * 3_600_000),
    }));
    return i % 2 === 0 ? [{ ...base, started_at: new Date(now - i * 1000) }, ...resolved] : resolved;
  });
  for (let at = 0; at < alertRows.length; at += 2000) await knex('alerts').insert(alertRows.slice(at, at + 2000));
  const latest = systems.map((system, i) => ({
    system_id: system.id,
    name: 'cpu.usage_pct',
    instance: '',
    time: new Date(now),
    value: 50 + (i % 50),
  }));
  for (let at = 0; at < latest.length; at += 2000) await knex('metric_latest').insert(latest.slice(at, at + 2000));
  const [rule] = await knex('alert_rules')
    .insert({
      key: 'bench.cpu',
      name: 'CPU above 10 % (fires everywhere)',
      severity: 'WARNING',
      metric: 'cpu.usage_pct',
      operator: '>',
      threshold: 10,
    })
    .returning<{ id: number }[]>('id');
  const open = alertRows.filter((row) => !('state' in row)).length;
  console.log(
    `console-scale: alerts and preview: ${open} open alerts, ${alertRows.length - open} resolved, ` +
      `a rule that fires on all ${systems.length} systems`,
  );

  for (const [label, path] of [
    ['GET /api/alerts?state=open&limit=100', '/api/alerts?state=open&limit=100'],
    [`GET /api/alert-rules/:id/preview`, `/api/alert-rules/${rule?.id}/preview`],
  ] as const)
    await timed(label, 5, async () => {
      const reply = await fetch(`${url}${path}`, { headers: { cookie } });
      return `${((await reply.arrayBuffer()).byteLength / 1024).toFixed(0)} KiB`;
    });

  await timed('first alert row of /alerts', 3, async () => {
    await page.goto(`${url}/alerts`);
    await page.locator('[data-testid="alert"]').first().waitFor();
  });
  const wanted = systems[4321 % systems.length]?.name as string;
  await timed(`/alerts System filter: "${wanted}" offered`, 3, async () => {
    await page.goto(`${url}/alerts`);
    await page.locator('[data-testid="alert"]').first().waitFor();
    const filter = page.getByRole('combobox', { name: 'System' });
    await filter.click();
    if ((await filter.evaluate((element) => element.tagName)) === 'INPUT') await filter.fill(wanted);
    await page.getByRole('option', { name: wanted, exact: true }).waitFor();
    await page.keyboard.press('Escape');
  });
  await timed('/rules preview of the rule that fires everywhere on screen', 3, async () => {
    await page.goto(`${url}/rules`);
    await page
      .getByRole('row', { name: /bench\.cpu/ })
      .getByRole('button', { name: 'Preview' })
      .click();
    await page.locator('[data-testid="preview-system"]').first().waitFor();
    const shown = await page.locator('[data-testid="preview-system"]').count();
    return `${shown} systems listed`;
  });
}
