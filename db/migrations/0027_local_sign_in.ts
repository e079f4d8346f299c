/**
 * Local sign-in beside single sign-on (docs/decisions.md "Local sign-in beside single sign-on").
 *
 * - `users.local_password`: whether the account has a password someone chose. Accounts single
 *   sign-on created hold the hash of a random value nobody knows: false. A password set later (by an
 *   administrator, the reset script) makes it true. Existing accounts created by a single sign-on are
 *   found by their sign-in's audit row (`after.account = 'created'`).
 * - `users.break_glass`: an administrator who may always sign in with a password, even when local
 *   sign-in is refused to everyone else. The first account (the administrator `/setup` created) is
 *   one from the start.
 * - `users.last_sign_in_at` (0023): from now on set by local sign-ins too.
 * - The setting itself is the `local_sign_in` row of `app_settings` (`{"restricted": true}`).
 * - `sso_sign_ins.test_by`: a "Test sign-in" under way, by this administrator: its callback signs
 *   nobody in, it shows the claims received.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE users
      ADD COLUMN local_password boolean NOT NULL DEFAULT true,
      ADD COLUMN break_glass boolean NOT NULL DEFAULT false;
    ALTER TABLE sso_sign_ins ADD COLUMN test_by integer REFERENCES users (id) ON DELETE CASCADE;
    UPDATE users SET local_password = false
      WHERE oidc_issuer IS NOT NULL
        AND id::text IN (SELECT target_id FROM audit_log
                          WHERE action = 'auth.sign_in' AND after->>'account' = 'created');
    UPDATE users SET break_glass = true
      WHERE id = (SELECT min(id) FROM users) AND role = 'ADMIN' AND local_password;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DELETE FROM app_settings WHERE key = 'local_sign_in';
    ALTER TABLE sso_sign_ins DROP COLUMN test_by;
    ALTER TABLE users DROP COLUMN break_glass, DROP COLUMN local_password;
  `);
}
