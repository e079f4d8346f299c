/**
 * What the audit log never stores: the value of any field whose name says it holds a secret, at any
 * depth, is replaced by "[sealed]" (null stays null, so "was set" / "was cleared" still shows).
 * A name matches when, lower-cased and without `_`/`-`, it contains one of SECRET_NAME_PARTS
 * (passwords and their hashes, tokens of every kind, TOTP secrets, e-mailed and recovery codes,
 * cookies), or ends with one of SECRET_NAME_ENDINGS (enrollment and encryption keys, URLs), or is
 * one of SECRET_NAMES (a channel's `target`: a webhook URL carries its own secret). A rule's plain
 * `key` (`cpu.high`) is its name, not a secret, and is kept.
 */
export const SEALED = '[sealed]';

export const SECRET_NAME_PARTS = [
  'password',
  'passphrase',
  'secret',
  'token',
  'hash',
  'totp',
  'code',
  'cookie',
  'authorization',
  'credential',
] as const;
export const SECRET_NAME_ENDINGS = ['key', 'url'] as const;
export const SECRET_NAMES = ['target'] as const;

export function isSecretName(name: string): boolean {
  const plain = name.toLowerCase().replace(/[_-]/g, '');
  if ((SECRET_NAMES as readonly string[]).includes(plain)) return true;
  if (plain !== 'key' && SECRET_NAME_ENDINGS.some((ending) => plain.endsWith(ending))) return true;
  return SECRET_NAME_PARTS.some((part) => plain.includes(part));
}

export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value instanceof Date) return value.toISOString();
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [name, inner] of Object.entries(value as Record<string, unknown>)) {
    if (inner === undefined) continue;
    out[name] = isSecretName(name) && inner !== null ? SEALED : redact(inner);
  }
  return out;
}

/**
 * An update's before/after: only the fields whose value changed (compared as JSON after redaction,
 * so a changed secret shows as a changed field, both sides "[sealed]").
 */
export function changedFields(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): { before: Record<string, unknown>; after: Record<string, unknown> } {
  const sealedBefore = redact(before) as Record<string, unknown>;
  const sealedAfter = redact(after) as Record<string, unknown>;
  const rawBefore = JSON.parse(JSON.stringify(before)) as Record<string, unknown>;
  const rawAfter = JSON.parse(JSON.stringify(after)) as Record<string, unknown>;
  const changed = { before: {} as Record<string, unknown>, after: {} as Record<string, unknown> };
  for (const name of new Set([...Object.keys(sealedBefore), ...Object.keys(sealedAfter)])) {
    if (JSON.stringify(rawBefore[name]) === JSON.stringify(rawAfter[name])) continue;
    if (name in sealedBefore) changed.before[name] = sealedBefore[name];
    if (name in sealedAfter) changed.after[name] = sealedAfter[name];
  }
  return changed;
}
