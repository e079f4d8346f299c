/**
 * SQL of password resets (e-mailed links and ops/reset-password.ts). Reset
 * tokens are stored as SHA-256 hashes; a password change ends every session and
 * trusted device of the account in the same transaction.
 */
import type { Knex } from 'knex';

type Db = Knex | Knex.Transaction;

export interface AccountRow {
  id: number;
  email: string;
  username: string | null;
  role: string;
  disabled: boolean;
  totpEnrolled: boolean;
  /** false: created by single sign-on, no password of its own (no reset link is sent). */
  localPassword: boolean;
}

interface UserRecord {
  id: number;
  email: string;
  username: string | null;
  role: string;
  disabled: boolean;
  totp_enrolled: boolean;
  local_password: boolean;
}

function mapAccount(row: UserRecord): AccountRow {
  return {
    id: row.id,
    email: row.email,
    username: row.username,
    role: row.role,
    disabled: row.disabled,
    totpEnrolled: row.totp_enrolled,
    localPassword: row.local_password,
  };
}

function accounts(db: Db) {
  return db('users').select(
    'id',
    'email',
    'username',
    'role',
    'disabled',
    'local_password',
    db.raw('totp_secret IS NOT NULL AS totp_enrolled'),
  );
}

export async function listAccounts(db: Db): Promise<AccountRow[]> {
  const rows: UserRecord[] = await accounts(db).orderBy('id');
  return rows.map(mapAccount);
}

async function findAccountBy(db: Db, column: 'email' | 'username', value: string): Promise<AccountRow | null> {
  const row: UserRecord | undefined = await accounts(db).whereRaw('lower(??) = lower(?)', [column, value]).first();
  return row ? mapAccount(row) : null;
}

/** Case-insensitive, like every sign-in identifier . */
export function findAccountByEmail(db: Db, email: string): Promise<AccountRow | null> {
  return findAccountBy(db, 'email', email);
}

/** Matched like the login form: a value with '@' is an e-mail address, anything else a username; any case. */
export function findAccountByIdentifier(db: Db, identifier: string): Promise<AccountRow | null> {
  return findAccountBy(db, identifier.includes('@') ? 'email' : 'username', identifier);
}

/** Stores a new reset token for the account; older unused ones stop working (a newer link supersedes). */
export async function replaceResetToken(db: Knex, userId: number, tokenHash: string, expiresAt: Date): Promise<void> {
  await db.transaction(async (trx) => {
    await trx('password_reset_tokens').where({ user_id: userId }).whereNull('used_at').delete();
    await trx('password_reset_tokens').insert({ user_id: userId, token_hash: tokenHash, expires_at: expiresAt });
  });
}

export interface UsableResetToken {
  tokenId: number;
  userId: number;
  email: string;
  username: string | null;
}

/** The token's account, if the token is unused, unexpired and its account still enabled. */
export async function findUsableResetToken(db: Db, tokenHash: string, now: Date): Promise<UsableResetToken | null> {
  const row = await db('password_reset_tokens as t')
    .join('users as u', 'u.id', 't.user_id')
    .where('t.token_hash', tokenHash)
    .whereNull('t.used_at')
    .where('t.expires_at', '>', now)
    .where('u.disabled', false)
    .first<{ token_id: number; user_id: number; email: string; username: string | null } | undefined>(
      't.id as token_id',
      'u.id as user_id',
      'u.email',
      'u.username',
    );
  return row ? { tokenId: row.token_id, userId: row.user_id, email: row.email, username: row.username } : null;
}

/** Marks the token used; false when it was used (or expired) meanwhile, so two racing resets cannot both win. */
export async function consumeResetToken(trx: Knex.Transaction, tokenId: number, now: Date): Promise<boolean> {
  const changed = await trx('password_reset_tokens')
    .where({ id: tokenId })
    .whereNull('used_at')
    .where('expires_at', '>', now)
    .update({ used_at: now });
  return changed === 1;
}

/**
 * Writes the new hash and ends everything the old password opened: sessions,
 * trusted devices and outstanding reset links. With clearSecondFactor, also
 * unenrols the authenticator (ops/reset-password.ts --clear-2fa only).
 */
export async function setPasswordAndEndSessions(
  trx: Knex.Transaction,
  userId: number,
  passwordHash: string,
  now: Date,
  options: { clearSecondFactor?: boolean } = {},
): Promise<void> {
  await trx('users')
    .where({ id: userId })
    .update({
      password_hash: passwordHash,
      // a password set here is one someone chose: the account may sign in with it
      local_password: true,
      updated_at: now,
      ...(options.clearSecondFactor ? { totp_secret: null, totp_pending_secret: null, totp_last_step: null } : {}),
    });
  await trx('sessions').where({ user_id: userId }).delete();
  await trx('trusted_devices').where({ user_id: userId }).delete();
  await trx('password_reset_tokens').where({ user_id: userId }).whereNull('used_at').update({ used_at: now });
}
