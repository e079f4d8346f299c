/**
 * SQL of the key check: the check value, and every stored secret the key covers
 * (docs/operations.md "Stored secrets"), read under row locks so a re-encryption rewrites
 * exactly what it read.
 */
import type { Knex } from 'knex';
import { transactionOf } from '../lib/transaction.js';
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

async function tableExists(trx: Knex, table: string): Promise<boolean> {
  const { rows } = await trx.raw<{ rows: { found: string | null }[] }>('SELECT to_regclass(?) AS found', [table]);
  return rows[0]?.found != null;
}

async function lockSmtpPassword(trx: Knex): Promise<StoredSecret[]> {
  const smtp = await trx('app_settings')
    .where({ key: 'smtp' })
    .forUpdate()
    .first<{ password: string | null } | undefined>(trx.raw(`value->>'password' AS password`));
  return smtp?.password ? [{ cell: { kind: 'smtp_password' }, place: places.smtpPassword, sealed: smtp.password }] : [];
}

async function lockTotpSecrets(trx: Knex): Promise<StoredSecret[]> {
  const secrets: StoredSecret[] = [];
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
  return secrets;
}

async function lockAgentSettings(trx: Knex): Promise<StoredSecret[]> {
  // agent_settings arrives with the agent-settings feature; until then there is nothing to cover
  if (!(await tableExists(trx, 'agent_settings'))) return [];
  const settings = await trx('agent_settings')
    .where({ secret: true })
    .forUpdate()
    .select<{ id: number; value: string }[]>('id', 'value');
  return settings.map((setting) => ({
    cell: { kind: 'agent_setting', id: setting.id },
    place: places.agentSetting(setting.id),
    sealed: setting.value,
  }));
}

async function lockChannelSecrets(trx: Knex): Promise<StoredSecret[]> {
  if (!(await tableExists(trx, 'notification_channels'))) return [];
  const secrets: StoredSecret[] = [];
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
  return secrets;
}

async function lockCheckHeaders(trx: Knex): Promise<StoredSecret[]> {
  if (!(await tableExists(trx, 'checks'))) return [];
  const checks = await trx('checks')
    .whereNotNull('sealed_headers')
    .forUpdate()
    .select<{ id: number; sealed_headers: string }[]>('id', 'sealed_headers');
  return checks.map((check) => ({
    cell: { kind: 'check_headers', id: check.id },
    place: places.checkHeaders(check.id),
    sealed: check.sealed_headers,
  }));
}

export function createSecretsRepo(db: Knex) {
  return {
    transaction: transactionOf(db),
    async findKeyCheck(trx: Knex = db): Promise<string | null> {
      const row = await trx('app_settings')
        .where({ key: CHECK_KEY })
        .first<{ value: { sealed?: unknown } } | undefined>('value');
      return typeof row?.value.sealed === 'string' ? row.value.sealed : null;
    },

    async saveKeyCheck(sealed: string, trx: Knex = db): Promise<void> {
      await trx('app_settings')
        .insert({ key: CHECK_KEY, value: JSON.stringify({ sealed }), updated_at: trx.fn.now() })
        .onConflict('key')
        .merge(['value', 'updated_at']);
    },

    /** Every sealed value the key covers, locked FOR UPDATE until the transaction ends. */
    async lockStoredSecrets(trx: Knex = db): Promise<StoredSecret[]> {
      return [
        ...(await lockSmtpPassword(trx)),
        ...(await lockTotpSecrets(trx)),
        ...(await lockAgentSettings(trx)),
        ...(await lockChannelSecrets(trx)),
        ...(await lockCheckHeaders(trx)),
      ];
    },

    async updateStoredSecret(cell: SecretCell, sealed: string, trx: Knex = db): Promise<void> {
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
    },
  };
}

export type SecretsRepo = ReturnType<typeof createSecretsRepo>;
