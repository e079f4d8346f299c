/**
 * SMTP settings edited at runtime (docs/operations.md "Settings edited at runtime"): read from
 * the database on every use, so a change applies to the next mail without a
 * restart. The password is sealed at rest and never leaves this service except
 * to the mail transport.
 */
import type { Knex } from 'knex';
import { SYSTEM_ACTOR, type AuditActor, type AuditTrail } from '../../lib/audit-trail.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { SmtpTransportSettings } from '../../mail/smtp-settings.js';
import { places } from '../../secrets/places.js';
import { findSmtpSettings, saveSmtpSettings, type StoredSmtpSettings } from './repo.js';
import type { SmtpSettings, SmtpSettingsInput } from '../../../../contracts/settings.js';

/** What GET /api/settings/smtp answers: everything but the password (contracts/settings.ts). */
export type SmtpSettingsView = SmtpSettings;

/** What the mail transport needs, password in clear. */
export interface SmtpSettingsDeps {
  db: Knex;
  box: SecretBox;
  audit: AuditTrail;
}

const DEFAULTS: StoredSmtpSettings = {
  enabled: false,
  host: '',
  port: 587,
  encryption: 'starttls',
  user: '',
  password: null,
  fromAddress: '',
  fromName: 'Argus',
};

export function createSmtpSettingsService({ db, box, audit }: SmtpSettingsDeps) {
  async function load(): Promise<StoredSmtpSettings> {
    return { ...DEFAULTS, ...((await findSmtpSettings(db)) ?? {}) };
  }

  function view(stored: StoredSmtpSettings): SmtpSettingsView {
    const { password, ...rest } = stored;
    return { ...rest, passwordSet: password !== null };
  }

  /**
   * The stored block with its password opened; null when a stored password does not
   * open (wrong key: the SecretBox has logged it), so mail stops instead of
   * signing in with nothing.
   */
  async function opened(): Promise<SmtpTransportSettings | null> {
    const stored = await load();
    if (stored.password === null) return { ...stored, password: null };
    const password = box.open(stored.password, places.smtpPassword);
    return password === null ? null : { ...stored, password };
  }

  return {
    async get(): Promise<SmtpSettingsView> {
      return view(await load());
    },

    /** Saves the block; without an actor the change is the system's (tests, scripts). */
    async update(input: SmtpSettingsInput, actor: AuditActor = SYSTEM_ACTOR): Promise<SmtpSettingsView> {
      return db.transaction(async (trx) => {
        const current = { ...DEFAULTS, ...((await findSmtpSettings(trx)) ?? {}) };
        let password = current.password;
        if (input.password === '') password = null;
        else if (input.password !== undefined) password = box.seal(input.password, places.smtpPassword);
        const next: StoredSmtpSettings = {
          enabled: input.enabled,
          host: input.host,
          port: input.port,
          encryption: input.encryption,
          user: input.user,
          password,
          fromAddress: input.fromAddress,
          fromName: input.fromName,
        };
        await saveSmtpSettings(trx, next);
        // the password is compared sealed: a new one shows as a changed field, "[sealed]" both sides
        await audit.record(trx, actor, {
          action: 'settings.smtp.update',
          targetType: 'settings',
          targetId: 'smtp',
          before: { ...current },
          after: { ...next },
        });
        return view(next);
      });
    },

    /** Switched on and complete: the login asks for e-mailed codes and the reset link is offered. */
    async isEnabled(): Promise<boolean> {
      const stored = await load();
      return stored.enabled && stored.host !== '';
    },

    /** The settings to send with; null while SMTP is off or its password does not open. */
    async getTransportSettings(): Promise<SmtpTransportSettings | null> {
      const settings = await opened();
      return settings && settings.enabled && settings.host !== '' ? settings : null;
    },

    /**
     * The saved settings whether switched on or not, for the admin's test send (so a
     * configuration can be tried before enabling it, which makes sign-in depend on it).
     * Throws an Error naming what is missing.
     */
    async getSettingsForTest(): Promise<SmtpTransportSettings> {
      const stored = await load();
      if (stored.host === '') throw new Error('No SMTP host is saved yet');
      const settings = await opened();
      if (!settings) throw new Error('The saved SMTP password could not be decrypted: enter it again and save');
      return settings;
    },
  };
}

export type SmtpSettingsService = ReturnType<typeof createSmtpSettingsService>;
