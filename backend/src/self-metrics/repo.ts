/** The one query of the self-metrics: how deep the notification outboxes are (read on each scrape). */
import type { Knex } from 'knex';

export interface OutboxDepth {
  channelDeliveries: number;
  accountEmails: number;
}

export function createSelfMetricsRepo(db: Knex) {
  return {
    /** Pending rows of both outboxes, each counted through its partial `status = 'pending'` index. */
    async outboxDepth(): Promise<OutboxDepth> {
      const { rows } = await db.raw<{ rows: { channel: string; email: string }[] }>(
        `SELECT (SELECT count(*) FROM channel_deliveries WHERE status = 'pending') AS channel,
                (SELECT count(*) FROM alert_notifications WHERE status = 'pending') AS email`,
      );
      const row = rows[0];
      return { channelDeliveries: Number(row?.channel ?? 0), accountEmails: Number(row?.email ?? 0) };
    },
  };
}
