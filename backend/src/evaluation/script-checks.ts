/**
 * A script check's alert says what the check said: the metric rules decide on `script.state`
 * like on any series, and this step gives each alert they raise on it the check's own message
 * (`script_checks`, written by the ingest from the reports' `scripts`), for the alert and its
 * notifications. One read (the observations repo) for the run's raises, none when no check raised.
 */
import type { Knex } from 'knex';
import { scriptCheckText } from '../../../contracts/script-metrics.js';
import type { ObservationsRepo } from './observations-repo.js';
import type { NewAlert } from './types.js';

export const SCRIPT_STATE_METRIC = 'script.state';

/** Rewrites, in place, the message of each raise on `script.state` (`metricOf` names a raise's metric). */
export async function withScriptCheckMessages(
  repo: Pick<ObservationsRepo, 'scriptCheckMessages'>,
  trx: Knex,
  raise: NewAlert[],
  metricOf: (alert: NewAlert) => string | null | undefined,
): Promise<void> {
  const ofChecks = raise.filter((alert) => metricOf(alert) === SCRIPT_STATE_METRIC);
  if (!ofChecks.length) return;
  const messages = await repo.scriptCheckMessages(
    ofChecks.map((alert) => ({ systemId: alert.systemId, name: alert.instance })),
    trx,
  );
  for (const alert of ofChecks) {
    const message = messages.get(`${alert.systemId}\u0000${alert.instance}`) ?? null;
    alert.message = scriptCheckText(alert.instance, alert.value ?? -1, message);
  }
}
