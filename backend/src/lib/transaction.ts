/** What a repo offers its service: `work` in one transaction (the change and its audit row commit together or not at all). */
import type { Knex } from 'knex';

export type RunInTransaction = <T>(work: (trx: Knex.Transaction) => Promise<T>) => Promise<T>;

export const transactionOf =
  (db: Knex): RunInTransaction =>
  (work) =>
    db.transaction(work);
