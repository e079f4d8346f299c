/**
 * SQL of the key check: the check value, and every stored secret the key covers
 * (docs/operations.md "Stored secrets"), read under row locks so a re-encryption rewrites
 * exactly what it read.
 */
import type { Knex } from 'knex';
import { places } from './places.js';

const CHECK_KEY = 'secrets_key_check';

export type SecretCell =
  | { kind: 'smtp_password' }
  | { kind: 'user'; column: 'totp_secret' | 'totp_pending_secret'; id: number }
  | { kind: 'agent_setting'; id: number }
  | { kind: 'channel'; column: 'target' | 'secret'; id: number }
  | { kind: 'check_headers'; id: number };

export interface StoredSecret {
  cell: SecretCell;
  place: string;
  sealed: string;
}

export async function findKeyCheck(db: Knex | Knex.Transaction): Promise<string | null> {
  const row = await db('app_settings')
    .where({ key: CHECK_KEY })
    .first<{ value: { sealed?: unknown } } | undefined>('value');
  return typeof row?.value.sealed === 'string' ? row.value.sealed : null;
}

export async function saveKeyCheck(db: Knex | Knex.Transaction, sealed: string): Promise<void> {
  await db('app_settings')
    .insert({ key: CHECK_KEY, value: JSON.stringify({ sealed }), updated_at: db.fn.now() })
    .onConflict('key')
    .merge(['value', 'updated_at']);
}

async function tableExists(trx: Knex.Transaction, table: string): Promise<boolean> {
  const { rows } = await trx.raw<{ rows: { found: string | null }[] }>('SELECT to_regclass(?) AS found', [table]);
  return rows[0]?.found != null;
}

/** Every sealed value the key covers, locked FOR UPDATE until the transaction ends. */
export async function lockStoredSecrets(trx: Knex.Transaction): Promise<StoredSecret[]> {
  const secrets: StoredSecret[] = [];

  const smtp = await trx('app_settings')
    .where({ key: 'smtp' })
    .forUpdate()
    .first<{ password: string | null } | undefined>(trx.raw(`value->>'password' AS password`));
  if (smtp?.password)
    secrets.push({ cell: { kind: 'smtp_password' }, place: places.smtpPassword, sealed: smtp.password });

  const users = await trx('users')
    .whereNotNull('totp_secret')
    .orWhereNotNull('totp_pending_secret')
    .forUpdate()
    .select<{ id: number; totp_secret: string | null; totp_pending_secret: string | null }[]>(
      'id',
      'totp_secret',
      'totp_pending_secret',
    );
  for (const user of users) {
    if (user.totp_secret) {
      const cell = { kind: 'user', column: 'totp_secret', id: user.id } as const;
      secrets.push({ cell, place: places.totpSecret(user.id), sealed: user.totp_secret });
    }
    if (user.totp_pending_secret) {
      const cell = { kind: 'user', column: 'totp_pending_secret', id: user.id } as const;
      secrets.push({ cell, place: places.totpPendingSecret(user.id), sealed: user.totp_pending_secret });
    }
  }

  // agent_settings arrives with the agent-settings feature; until then there is nothing to cover
  if (await tableExists(trx, 'agent_settings')) {
    const settings = await trx('agent_settings')
      .where({ secret: true })
      .forUpdate()
      .select<{ id: number; value: string }[]>('id', 'value');
    for (const setting of settings) {
      secrets.push({
        cell: { kind: 'agent_setting', id: setting.id },
        place: places.agentSetting(setting.id),
        sealed: setting.value,
      });
    }
  }
  if (await tableExists(trx, 'notification_channels')) {
    // e-mail targets are addresses, not secrets: only the URL types are sealed
    const channels = await trx('notification_channels')
      .whereNot({ type: 'email' })
      .orWhereNotNull('secret')
      .forUpdate()
      .select<{ id: number; type: string; target: string; secret: string | null }[]>('id', 'type', 'target', 'secret');
    for (const channel of channels) {
      if (channel.type !== 'email')
        secrets.push({
          cell: { kind: 'channel', column: 'target', id: channel.id },
          place: places.channelTarget(channel.id),
          sealed: channel.target,
        });
      if (channel.secret)
        secrets.push({
          cell: { kind: 'channel', column: 'secret', id: channel.id },
          place: places.channelSecret(channel.id),
          sealed: channel.secret,
        });
    }
  }
  if (await tableExists(trx, 'checks')) {
    const checks = await trx('checks')
      .whereNotNull('sealed_headers')
      .forUpdate()
      .select<{ id: number; sealed_headers: string }[]>('id', 'sealed_headers');
    for (const check of checks)
      secrets.push({
        cell: { kind: 'check_headers', id: check.id },
        place: places.checkHeaders(check.id),
        sealed: check.sealed_headers,
      });
  }
  return secrets;
}

export async function updateStoredSecret(trx: Knex.Transaction, cell: SecretCell, sealed: string): Promise<void> {
  switch (cell.kind) {
    case 'smtp_password':
      await trx('app_settings')
        .where({ key: 'smtp' })
        .update({
          value: trx.raw(`jsonb_set(value, '{password}', to_jsonb(?::text))`, [sealed]),
          updated_at: trx.fn.now(),
        });
      return;
    case 'user':
      await trx('users')
        .where({ id: cell.id })
        .update({ [cell.column]: sealed });
      return;
    case 'agent_setting':
      await trx('agent_settings').where({ id: cell.id }).update({ value: sealed });
      return;
    case 'channel':
      await trx('notification_channels')
        .where({ id: cell.id })
        .update({ [cell.column]: sealed });
      return;
    case 'check_headers':
      await trx('checks').where({ id: cell.id }).update({ sealed_headers: sealed });
      return;
  }
}
