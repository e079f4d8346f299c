/**
 * An HTTP check's headers: the values of secret ones are sealed at rest (one sealed JSON object per
 * check, secrets/places.ts) like a channel's secret, and answered as null; the others stay in the
 * settings as typed.
 */
import type { CheckHeader, CheckSettings } from '../../../contracts/checks.js';
import type { SecretBox } from '../lib/secret-box.js';
import { places } from '../secrets/places.js';

/** The secret values of a check's sealed headers, by header name (empty when none or unopenable). */
export function openSecretHeaders(box: SecretBox, id: number, sealed: string | null): Record<string, string> {
  if (!sealed) return {};
  const opened = box.open(sealed, places.checkHeaders(id));
  return opened ? (JSON.parse(opened) as Record<string, string>) : {};
}

export function sealSecretHeaders(box: SecretBox, id: number, values: Record<string, string>): string | null {
  return Object.keys(values).length ? box.seal(JSON.stringify(values), places.checkHeaders(id)) : null;
}

/** The headers to send: the plain ones from the settings, the secret ones opened. */
export function headersToSend(
  settings: CheckSettings | Record<string, unknown>,
  secrets: Record<string, string>,
): Record<string, string> {
  const headers = ((settings as { headers?: CheckHeader[] }).headers ?? []).map((h): [string, string | undefined] => [
    h.name,
    h.secret ? secrets[h.name] : h.value,
  ]);
  return Object.fromEntries(headers.filter((h): h is [string, string] => h[1] !== undefined));
}

/** The settings as stored and answered: secret header values taken out. */
export function withoutSecretValues<T extends CheckSettings>(settings: T): T {
  if (settings.type !== 'http') return settings;
  return { ...settings, headers: settings.headers.map((h) => (h.secret ? { name: h.name, secret: true } : h)) };
}
