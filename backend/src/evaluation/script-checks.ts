/**
 * A script check's alert says what the check said: the metric rules decide on `script.state`
 * like on any series, and this step gives each alert they raise on it the check's own message
 * (`script_checks`, written by the ingest from the reports' `checks`), for the alert and its
 * notifications. One statement for the run's raises, none when no check raised.
 */
import type { Knex } from 'knex';
import { scriptCheckText } from '../../../contracts/script-metrics.js';
import type { NewAlert } from './types.js';

export const SCRIPT_STATE_METRIC = 'script.state';

async function messagesOf(trx: Knex, alerts: readonly NewAlert[]): Promise<Map<string, string>> {
  const { rows } = await trx.raw<{ rows: { system_id: number; name: string; message: string }[] }>(
    `SELECT c.system_id, c.name, c.message
       FROM script_checks c
       JOIN unnest(?::int[], ?::text[]) AS raised(system_id, name) USING (system_id, name)`,
    [alerts.map((a) => a.systemId), alerts.map((a) => a.instance)],
  );
  return new Map(rows.map((row) => [`${row.system_id}\u0000${row.name}`, row.message]));
}

/** Rewrites, in place, the message of each raise on `script.state` (`metricOf` names a raise's metric). */
export async function withScriptCheckMessages(
  trx: Knex,
  raise: NewAlert[],
  metricOf: (alert: NewAlert) => string | null | undefined,
): Promise<void> {
  const ofChecks = raise.filter((alert) => metricOf(alert) === SCRIPT_STATE_METRIC);
  if (!ofChecks.length) return;
  const messages = await messagesOf(trx, ofChecks);
  for (const alert of ofChecks) {
    const message = messages.get(`${alert.systemId}\u0000${alert.instance}`) ?? null;
    alert.message = scriptCheckText(alert.instance, alert.value ?? -1, message);
  }
}
