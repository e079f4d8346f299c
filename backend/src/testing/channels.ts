/** Notification channels and policies written straight to the database for run-level tests. */
import type { Knex } from 'knex';
import type { SecretBox } from '../lib/secret-box.js';
import { places } from '../secrets/places.js';

/** A webhook channel to `url`, its target (and secret) sealed as the API would seal them. */
export async function sealedWebhook(
  db: Knex,
  box: SecretBox,
  url: string,
  options: { customerId?: number | null; secret?: string; minSeverity?: string; enabled?: boolean; name?: string } = {},
): Promise<number> {
  const [row] = await db('notification_channels')
    .insert({
      customer_id: options.customerId ?? null,
      name: options.name ?? url,
      type: 'webhook',
      target: '',
      min_severity: options.minSeverity ?? 'INFO',
      enabled: options.enabled ?? true,
    })
    .returning<{ id: number }[]>('id');
  const id = (row as { id: number }).id;
  await db('notification_channels')
    .where({ id })
    .update({
      target: box.seal(url, places.channelTarget(id)),
      secret: options.secret ? box.seal(options.secret, places.channelSecret(id)) : null,
    });
  return id;
}

/** The global policy routes every severity to these channels. */
export async function routeGlobally(db: Knex, channelIds: number[]): Promise<void> {
  await db('notification_policies')
    .whereNull('customer_id')
    .update({ routes: JSON.stringify([{ minSeverity: 'INFO', channelIds }]) });
}
