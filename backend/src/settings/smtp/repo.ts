/**
 * The SMTP block in app_settings (key 'smtp'), stored as JSON with the password
 * already sealed by the SecretBox; this file never sees a password in clear.
 */
import type { Knex } from 'knex';
import type { SmtpEncryption } from '../../mail/smtp-settings.js';

export interface StoredSmtpSettings {
  enabled: boolean;
  host: string;
  port: number;
  encryption: SmtpEncryption;
  user: string;
  /** Sealed with the SecretBox (place 'app_settings:smtp.password'), or null for no password. */
  password: string | null;
  fromAddress: string;
  fromName: string;
}

const KEY = 'smtp';

export async function findSmtpSettings(db: Knex | Knex.Transaction): Promise<Partial<StoredSmtpSettings> | null> {
  const row = await db('app_settings')
    .where({ key: KEY })
    .first<{ value: Partial<StoredSmtpSettings> } | undefined>('value');
  return row?.value ?? null;
}

export async function saveSmtpSettings(db: Knex | Knex.Transaction, settings: StoredSmtpSettings): Promise<void> {
  await db('app_settings')
    .insert({ key: KEY, value: JSON.stringify(settings), updated_at: db.fn.now() })
    .onConflict('key')
    .merge(['value', 'updated_at']);
}

/** The lost-key recovery (ops/reset-password.ts --disable-smtp). False when no SMTP settings were ever saved. */
export async function disableSmtp(db: Knex | Knex.Transaction): Promise<boolean> {
  const changed = await db('app_settings')
    .where({ key: KEY })
    .update({ value: db.raw(`jsonb_set(value, '{enabled}', 'false'::jsonb)`), updated_at: db.fn.now() });
  return changed > 0;
}
