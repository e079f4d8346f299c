import { FormArray, FormControl, FormGroup, NonNullableFormBuilder } from '@angular/forms';

import { Check, CheckType, DnsRecordType, HttpMethod } from '@console/shared/checks/checks-api';

/** One extra header of an HTTP check. `kept`: a secret whose stored value stays while `value` is empty. */
export interface HeaderForm {
  name: FormControl<string>;
  value: FormControl<string>;
  secret: FormControl<boolean>;
  kept: FormControl<boolean>;
}

/**
 * The settings of every type in one group, named as the server names them (`settings.url`), so a
 * refusal lands under its field; only the chosen type's are sent.
 */
export interface SettingsForm {
  url: FormControl<string>;
  method: FormControl<HttpMethod>;
  expectedStatuses: FormControl<string>;
  keyword: FormControl<string>;
  keywordIsRegex: FormControl<boolean>;
  keywordAbsent: FormControl<boolean>;
  followRedirects: FormControl<boolean>;
  verifyTls: FormControl<boolean>;
  headers: FormArray<FormGroup<HeaderForm>>;
  host: FormControl<string>;
  port: FormControl<number | null>;
  count: FormControl<number>;
  name: FormControl<string>;
  recordType: FormControl<DnsRecordType>;
  server: FormControl<string>;
  expected: FormControl<string>;
}

type Raw = ReturnType<FormGroup<SettingsForm>['getRawValue']>;

/** The fields each type cannot do without (the rest have the server's defaults). */
export const REQUIRED_SETTINGS: Record<CheckType, (keyof SettingsForm)[]> = {
  http: ['url', 'expectedStatuses'],
  tcp: ['host', 'port'],
  ping: ['host'],
  dns: ['name'],
};

/** A stored check's settings as the server answers them: read loosely, each field as its type has it. */
type Stored = Record<string, unknown>;
const text = (stored: Stored, key: string, fallback = ''): string =>
  typeof stored[key] === 'string' ? (stored[key] as string) : fallback;
const flag = (stored: Stored, key: string, fallback: boolean): boolean =>
  typeof stored[key] === 'boolean' ? (stored[key] as boolean) : fallback;

export function headerGroup(
  fb: NonNullableFormBuilder,
  header: { name: string; value: string | null; secret: boolean } | null,
): FormGroup<HeaderForm> {
  return fb.group({
    name: [header?.name ?? ''],
    // a secret's value is never answered: empty, and kept unless a new one is typed
    value: [header?.secret ? '' : (header?.value ?? '')],
    secret: [header?.secret ?? false],
    kept: [!!header?.secret],
  });
}

export function settingsGroup(fb: NonNullableFormBuilder, settings: Check['settings'] | null): FormGroup<SettingsForm> {
  const s = (settings ?? {}) as Stored;
  const port = typeof s['port'] === 'number' ? s['port'] : null;
  return fb.group({
    url: [text(s, 'url')],
    method: [text(s, 'method', 'GET') as HttpMethod],
    expectedStatuses: [text(s, 'expectedStatuses', '200-299')],
    keyword: [text(s, 'keyword')],
    keywordIsRegex: [flag(s, 'keywordIsRegex', false)],
    keywordAbsent: [flag(s, 'keywordAbsent', false)],
    followRedirects: [flag(s, 'followRedirects', true)],
    verifyTls: [flag(s, 'verifyTls', true)],
    headers: fb.array((settings?.headers ?? []).map((h) => headerGroup(fb, h))),
    host: [text(s, 'host')],
    port: fb.control<number | null>(port),
    count: [typeof s['count'] === 'number' ? s['count'] : 3],
    name: [text(s, 'name')],
    recordType: [text(s, 'recordType', 'A') as DnsRecordType],
    server: [text(s, 'server')],
    expected: [text(s, 'expected')],
  });
}

/** A secret header left empty on an edit is sent without a value: the server keeps the stored one. */
function headersFrom(headers: Raw['headers']) {
  return headers
    .filter((h) => h.name.trim() !== '')
    .map((h) =>
      h.secret && h.kept && h.value === ''
        ? { name: h.name.trim(), secret: true }
        : { name: h.name.trim(), value: h.value, secret: h.secret },
    );
}

/** The settings of `type` as the API takes them; empty optional fields are left out. */
export function settingsFrom(type: CheckType, raw: Raw): Record<string, unknown> {
  const optional = (key: string, value: string) => (value.trim() ? { [key]: value.trim() } : {});
  switch (type) {
    case 'http':
      return {
        type,
        url: raw.url.trim(),
        method: raw.method,
        expectedStatuses: raw.expectedStatuses.trim(),
        ...(raw.keyword ? { keyword: raw.keyword } : {}),
        keywordIsRegex: raw.keywordIsRegex,
        keywordAbsent: raw.keywordAbsent,
        followRedirects: raw.followRedirects,
        verifyTls: raw.verifyTls,
        headers: headersFrom(raw.headers),
      };
    case 'tcp':
      return { type, host: raw.host.trim(), port: raw.port };
    case 'ping':
      return { type, host: raw.host.trim(), count: raw.count };
    case 'dns':
      return {
        type,
        name: raw.name.trim(),
        recordType: raw.recordType,
        ...optional('server', raw.server),
        ...optional('expected', raw.expected),
      };
  }
}
