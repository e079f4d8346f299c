/**
 * How each browser session was opened: `password` (the sign-in form) or `sso` (the identity
 * provider). Refusing password sign-in ends the open password sessions of the accounts it now
 * refuses, and must leave their provider sessions alone. Sessions opened before this was recorded
 * count as password sessions: an account that signed in through the provider before then signs in
 * again at worst.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE sessions
      ADD COLUMN method text NOT NULL DEFAULT 'password' CHECK (method IN ('password', 'sso'));
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE sessions DROP COLUMN method;`);
}
