/**
 * Single sign-on with OpenID Connect (docs/decisions.md "Single sign-on with OpenID Connect").
 *
 * - `users.oidc_issuer` + `users.oidc_subject`: the provider's identity of an account. Accounts are
 *   found by this pair only, never by e-mail alone; unique, so one identity opens one account.
 * - `users.oidc_groups`: the groups the provider listed at the last single sign-on, so a changed
 *   group mapping is applied to the account at once, not only at its next sign-in.
 * - `users.last_sign_in_at`: when the account last signed in through the provider.
 * - `sso_group_mappings`: a provider group → the role its members get; `sso_group_customers` the
 *   customers it grants (what an OPERATOR or VIEWER may see).
 * - `sso_sign_ins`: sign-ins under way between the redirect to the provider and its callback, keyed
 *   by the SHA-256 of `state`; deleted when the callback uses one, so a `state` works once.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE users
      ADD COLUMN oidc_issuer text,
      ADD COLUMN oidc_subject text,
      ADD COLUMN oidc_groups text[],
      ADD COLUMN last_sign_in_at timestamptz,
      ADD CONSTRAINT users_oidc_identity_pair CHECK ((oidc_issuer IS NULL) = (oidc_subject IS NULL));
    CREATE UNIQUE INDEX users_oidc_identity_idx ON users (oidc_issuer, oidc_subject) WHERE oidc_issuer IS NOT NULL;

    CREATE TABLE sso_group_mappings (
      group_name text PRIMARY KEY CHECK (length(group_name) BETWEEN 1 AND 200),
      role text NOT NULL CHECK (role IN ('ADMIN', 'OPERATOR', 'VIEWER')),
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE sso_group_customers (
      group_name text NOT NULL REFERENCES sso_group_mappings (group_name) ON DELETE CASCADE ON UPDATE CASCADE,
      customer_id integer NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
      PRIMARY KEY (group_name, customer_id)
    );

    CREATE TABLE sso_sign_ins (
      state_hash text PRIMARY KEY,
      nonce text NOT NULL,
      code_verifier text NOT NULL,
      return_to text NOT NULL,
      expires_at timestamptz NOT NULL
    );
    CREATE INDEX sso_sign_ins_expiry_idx ON sso_sign_ins (expires_at);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE sso_sign_ins, sso_group_customers, sso_group_mappings;
    DROP INDEX users_oidc_identity_idx;
    ALTER TABLE users DROP CONSTRAINT users_oidc_identity_pair,
      DROP COLUMN last_sign_in_at, DROP COLUMN oidc_groups, DROP COLUMN oidc_subject, DROP COLUMN oidc_issuer;
  `);
}
