/**
 * The data the page-by-page e2e checks (axe, overflow) judge every page with: a customer and
 * cluster, a maintenance window, a reporting system with an open CRITICAL alert that is flapping
 * and part of a cluster incident. Pages without rows would hide what rows do to them.
 */
import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { createCustomer } from '../../backend/src/testing/accounts.js';
import { sha256 } from '../../backend/src/lib/crypto.js';
import { ensureDefaultRules } from '../../db/seed-rules.js';
import { SimulatedAgent } from '../agent-sim/agent.js';

export interface SeededConsole {
  systemId: number;
  alertId: number;
  /** The address of the published status page (the cluster as "Web shop"). */
  statusPath: string;
}

/** A fixed slug of the right shape, so the page's address is known without reading the console. */
const STATUS_SLUG = 'e2eStatusPageSlug-000001';

export async function seedConsole(
  knex: Knex,
  app: { appUrl: string },
  secrets: { webhook: string; cron: string; enrollment: string; sub: string },
): Promise<SeededConsole> {
  await ensureDefaultRules(knex);
  const customerId = await createCustomer(knex, 'Acme');
  await knex('clusters').insert({ customer_id: customerId, name: 'web', enrollment_key: secrets.enrollment });
  // an hour on Sundays 12 hours away from now (the customer's zone is UTC): a window covering the
  // seeding itself would hold back the CRITICAL alert below, on Sunday mornings at 02:00
  const startHour = String((new Date().getUTCHours() + 12) % 24).padStart(2, '0');
  await knex('maintenance_windows').insert({
    customer_id: customerId,
    name: 'Sunday patching',
    scope_type: 'customer',
    scope_id: customerId,
    kind: 'weekly',
    weekdays: [0],
    start_time: `${startHour}:00`,
    duration_minutes: 60,
  });

  const agent = new SimulatedAgent({
    url: `${app.appUrl}/api/webhook/metrics`,
    secret: secrets.webhook,
    enrollment: secrets.enrollment,
    sub: secrets.sub,
    hostname: 'web-01',
    seed: 3,
  });
  const report = agent.collect();
  const readonly = report.metrics.find((m) => m.name === 'disk.readonly' && m.instance === '/');
  if (readonly) readonly.value = 1; // an open CRITICAL alert for the alert pages
  assert.equal((await agent.send())?.status, 200);
  const run = await fetch(`${app.appUrl}/api/cron/evaluate-alerts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secrets.cron}` },
  });
  assert.equal(run.status, 200);
  const systemId = ((await knex('systems').first('id')) as { id: number }).id;
  const alertId = ((await knex('alerts').first('id')) as { id: number }).id;
  // a cluster incident on the alerts page and the alert page
  const cluster = (await knex('clusters').first('id', 'customer_id')) as { id: number; customer_id: number };
  const [incident] = await knex('incidents')
    .insert({
      customer_id: cluster.customer_id,
      cluster_id: cluster.id,
      title: 'Site down: web',
      started_at: new Date(),
    })
    .returning<{ id: string }[]>('id');
  // and flapping, for the chip's contrast
  await knex('alerts').where({ id: alertId }).update({ incident_id: incident?.id, flapping_since: new Date() });
  // a published status page of the cluster, for its settings page and the public one
  const [page] = await knex('status_pages')
    .insert({
      customer_id: cluster.customer_id,
      title: 'Acme service status',
      announcement: 'Maintenance of the mail service on Sunday night.',
      slug: STATUS_SLUG,
      slug_hash: sha256(STATUS_SLUG),
    })
    .returning<{ id: number }[]>('id');
  await knex('status_page_items').insert({
    page_id: page?.id,
    position: 0,
    cluster_id: cluster.id,
    display_name: 'Web shop',
  });
  return { systemId, alertId, statusPath: `/status/${STATUS_SLUG}` };
}
