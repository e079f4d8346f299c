/**
 * Secrets at rest (docs/operations.md "Stored secrets"):
 * AES-256-GCM, random 96-bit IV per value, a key derived with HKDF-SHA256
 * from SETTINGS_ENCRYPTION_KEY (or AUTH_SECRET when unset), associated data
 * binding each ciphertext to its place (table/column/row), and a prefix naming
 * the format version and the key source:
 *
 *   v1.<source>.<iv>.<ciphertext+tag>     source: "sek" | "auth", parts base64url
 *
 * A value that does not open yields null and is logged (never the value).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Logger } from './logger.js';

export type KeySource = 'sek' | 'auth';

export interface SecretBox {
  /** The source new values are sealed under. */
  readonly source: KeySource;
  seal(plaintext: string, place: string): string;
  /** null when the value does not open (wrong key, tampered, moved to another place). */
  open(sealed: string, place: string): string | null;
  /** The key source a sealed value names, or null when it is not ours. */
  sourceOf(sealed: string): KeySource | null;
}

const VERSION = 'v1';
const SALT = Buffer.from('argus/secret-box/v1');

function deriveKey(material: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(material, 'utf8'), SALT, Buffer.from('stored-secrets'), 32));
}

export function createSecretBox(
  keys: { settingsEncryptionKey: string | null; authSecret: string },
  log: Logger,
): SecretBox {
  const derived: Partial<Record<KeySource, Buffer>> = { auth: deriveKey(keys.authSecret) };
  if (keys.settingsEncryptionKey) derived.sek = deriveKey(keys.settingsEncryptionKey);
  const source: KeySource = keys.settingsEncryptionKey ? 'sek' : 'auth';

  function sourceOf(sealed: string): KeySource | null {
    const [version, keySource] = sealed.split('.');
    return version === VERSION && (keySource === 'sek' || keySource === 'auth') ? keySource : null;
  }

  return {
    source,
    sourceOf,
    seal(plaintext, place) {
      const key = derived[source] as Buffer;
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(place, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return [VERSION, source, iv.toString('base64url'), body.toString('base64url')].join('.');
    },
    open(sealed, place) {
      const keySource = sourceOf(sealed);
      const key = keySource ? derived[keySource] : undefined;
      const [, , ivPart, bodyPart] = sealed.split('.');
      if (!keySource || !key || !ivPart || !bodyPart) {
        log.error(
          { place, keySource },
          'A stored secret could not be decrypted (unknown format or key not configured)',
        );
        return null;
      }
      try {
        const body = Buffer.from(bodyPart, 'base64url');
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(ivPart, 'base64url'));
        decipher.setAAD(Buffer.from(place, 'utf8'));
        decipher.setAuthTag(body.subarray(body.length - 16));
        return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString('utf8');
      } catch {
        log.error({ place, keySource }, 'A stored secret could not be decrypted (wrong key or tampered value)');
        return null;
      }
    },
  };
}
