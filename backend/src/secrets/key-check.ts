/**
 * The start-up check of the key that seals stored secrets (docs/operations.md
 * "Stored secrets"). A check value in app_settings is sealed
 * once; at every start:
 *   - absent: create it ('created');
 *   - opens: fine ('ok'), and when it was sealed under the AUTH_SECRET fallback
 *     while SETTINGS_ENCRYPTION_KEY is now set, every covered secret moves to the
 *     new key in one transaction ('reencrypted');
 *   - does not open: the key changed or was lost. Logged loudly with the
 *     recovery steps ('mismatch'); the app still starts, since an admin must be
 *     able to sign in and re-enter the secrets. Once a re-entered secret opens
 *     under the current key, the check follows that key ('ok' again).
 */
import type { Logger } from '../lib/logger.js';
import type { SecretBox } from '../lib/secret-box.js';
import { places } from './places.js';
import type { SecretsRepo } from './repo.js';

export type KeyCheckStatus = 'created' | 'ok' | 'mismatch' | 'reencrypted';

export interface KeyCheckDeps {
  repo: SecretsRepo;
  box: SecretBox;
  log: Logger;
}

// Not a secret: a known plaintext whose only job is to tell whether the key still opens things.
const CHECK_PLAINTEXT = 'argus secrets key check v1';

export const KEY_MISMATCH_MESSAGE = [
  'STORED SECRETS CANNOT BE DECRYPTED: SETTINGS_ENCRYPTION_KEY (or AUTH_SECRET when it is unset) is not the key',
  'they were encrypted with. Mail stops, agents lose their secret settings, and users with an authenticator',
  'cannot sign in. If the old key still exists, put it back and restart. Otherwise recover:',
  '(1) `npm run reset-password -- --disable-smtp` switches mail off, so sign-in asks for no e-mailed code;',
  '(2) an administrator signs in, re-enters the SMTP password and switches mail on again, and re-enters the',
  'agent secrets; (3) users re-enrol their authenticator - `npm run reset-password -- --clear-2fa <account>`',
  'unenrols one user (it also sets a new password).',
].join(' ');

async function reencrypt(repo: SecretsRepo, box: SecretBox, log: Logger): Promise<void> {
  await repo.transaction(async (trx) => {
    let moved = 0;
    let unreadable = 0;
    for (const secret of await repo.lockStoredSecrets(trx)) {
      if (box.sourceOf(secret.sealed) === box.source) continue;
      const plaintext = box.open(secret.sealed, secret.place);
      // a value that does not open is left as it is (the box has logged it): it is lost either way
      if (plaintext === null) {
        unreadable++;
        continue;
      }
      await repo.updateStoredSecret(secret.cell, box.seal(plaintext, secret.place), trx);
      moved++;
    }
    await repo.saveKeyCheck(box.seal(CHECK_PLAINTEXT, places.keyCheck), trx);
    if (moved || unreadable)
      log.info({ moved, unreadable }, 'Stored secrets re-encrypted under SETTINGS_ENCRYPTION_KEY');
  });
}

/**
 * After a lost key, the recovery re-enters secrets under the current key. Once one
 * of them opens, the current key is the reference: the check value follows it, so
 * the alarm stops repeating at every start (values still under the old key stay
 * unreadable, and the box logs each one when it is used).
 */
async function adoptCurrentKey(repo: SecretsRepo, box: SecretBox, log: Logger): Promise<boolean> {
  return repo.transaction(async (trx) => {
    const candidates = (await repo.lockStoredSecrets(trx)).filter(
      (secret) => box.sourceOf(secret.sealed) === box.source,
    );
    if (!candidates.some((secret) => box.open(secret.sealed, secret.place) !== null)) return false;
    await repo.saveKeyCheck(box.seal(CHECK_PLAINTEXT, places.keyCheck), trx);
    log.warn(
      'Stored secrets were re-entered under the current key after a key change: it is the reference from now on. ' +
        'Secrets still sealed under the old key stay unreadable until they are re-entered.',
    );
    return true;
  });
}

function logMismatch(sealed: string, box: SecretBox, log: Logger): void {
  const sealedUnder = box.sourceOf(sealed);
  // the likeliest slip: the variable was dropped from the environment, which the prefix tells apart
  const hint =
    sealedUnder === 'sek' && box.source === 'auth'
      ? 'SETTINGS_ENCRYPTION_KEY was set when the secrets were stored and is not set now: set it back and restart. '
      : '';
  log.error(
    { sealedUnder, currentKey: box.source === 'sek' ? 'SETTINGS_ENCRYPTION_KEY' : 'AUTH_SECRET' },
    hint + KEY_MISMATCH_MESSAGE,
  );
}

/** False when it failed: rolled back, every value still opens through the fallback key, so start anyway. */
async function tryReencrypt(repo: SecretsRepo, box: SecretBox, log: Logger): Promise<boolean> {
  try {
    await reencrypt(repo, box, log);
    return true;
  } catch (error) {
    log.error(
      { err: error },
      'Re-encrypting stored secrets under SETTINGS_ENCRYPTION_KEY failed; retried at the next start',
    );
    return false;
  }
}

export async function checkSecretsKey({ repo, box, log }: KeyCheckDeps): Promise<{ status: KeyCheckStatus }> {
  const sealed = await repo.findKeyCheck();
  if (sealed === null) {
    // first start with the check: values an older version sealed under the fallback move along
    if (box.source === 'auth' || !(await tryReencrypt(repo, box, log))) {
      await repo.saveKeyCheck(box.seal(CHECK_PLAINTEXT, places.keyCheck));
    }
    return { status: 'created' };
  }

  if (box.open(sealed, places.keyCheck) !== CHECK_PLAINTEXT) {
    if (await adoptCurrentKey(repo, box, log)) return { status: 'ok' };
    logMismatch(sealed, box, log);
    return { status: 'mismatch' };
  }

  if (box.sourceOf(sealed) === 'auth' && box.source === 'sek' && (await tryReencrypt(repo, box, log))) {
    return { status: 'reencrypted' };
  }
  return { status: 'ok' };
}
