/**
 * No 500 for any input, for every route at once: fast-check walks the OpenAPI
 * document and sends each route that takes a body or a query hostile values as a signed-in ADMIN —
 * NUL, lone surrogates, bytes that are not UTF-8, `__proto__`/`constructor` keys, 1e309, 2^53+1,
 * huge arrays and strings, deep nesting, wrong types — in place of one field of an otherwise
 * well-formed body, or as the whole body. No answer may be a 5xx, and a refused request may write
 * no row in any table (a row trigger on every table logs writes: testing/write-log.ts).
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import fc from 'fast-check';
import { useTestServer } from '../testing/app.js';
import { createAccount } from '../testing/accounts.js';
import { signedInAs, type Client } from '../testing/http.js';
import { installWriteLog, type WriteLog } from '../testing/write-log.js';
import type { OpenApiDocument } from './openapi.js';

/** Runs per route: enough to meet every kind of hostile value on most fields, in about a minute in all. */
const RUNS = 24;
/** Routes that read their own bodies (agents, the scheduler) or end the walker's own session. */
const SKIP = ['/api/webhook/metrics', '/api/cron/evaluate-alerts', '/api/auth/logout'];
/** A refused sign-in is recorded on purpose (the failure counter and its audit row). */
const WRITES_WHEN_REFUSED: Record<string, string[]> = { '/api/auth/login': ['audit_log', 'users'] };
/**
 * 5xx a route documents: the SMTP test reports the mail server's failure (or that none is saved) as
 * 502; "forgot password" answers 503 while SMTP is not enabled.
 */
const DOCUMENTED_5XX: Record<string, number> = { '/api/settings/smtp/test': 502, '/api/auth/password/forgot': 503 };
/** Touched by every signed-in request (the session's last use). */
const ALWAYS_WRITTEN = ['sessions'];

type Schema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  example?: unknown;
  examples?: unknown[];
  default?: unknown;
};
interface Operation {
  parameters?: { in: string; name: string }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
}

const PLACEHOLDER = '\u0001HOSTILE\u0001';
const PLACEHOLDER_JSON = JSON.stringify(PLACEHOLDER);

/** A hostile JSON fragment, as raw bytes where JSON text cannot say it (invalid UTF-8, 1e309). */
const hostileValue = fc.constantFrom<string | Buffer>(
  JSON.stringify('bad\u0000value'),
  '"lone \\ud800 surrogate"',
  '"\\udfff"',
  Buffer.from([0x22, 0x61, 0xff, 0xfe, 0x62, 0x22]), // "a<FF FE>b": not UTF-8
  Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]), // a surrogate encoded as UTF-8
  '1e309',
  '-1e309',
  '9007199254740993',
  '-1',
  '0',
  '1.5',
  '""',
  JSON.stringify('x'.repeat(20_000)),
  '[]',
  '{}',
  'null',
  'true',
  '"null"',
  JSON.stringify(Array.from({ length: 20_000 }, () => 1)),
  `${'['.repeat(5_000)}${']'.repeat(5_000)}`,
  `${'{"a":'.repeat(2_000)}1${'}'.repeat(2_000)}`,
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
);

const hostileQueryValue = fc.constantFrom(
  '%00',
  'a%00b',
  '%ED%A0%80',
  '%FF',
  '%',
  '1e309',
  '9007199254740993',
  '-1',
  '0',
  '',
  'x'.repeat(5_000),
  '__proto__',
  'true',
);

describe('every documented route under hostile input (fast-check over the OpenAPI document)', () => {
  // configured as deployed: without WEBHOOK_SECRET the agent routes answer 500 "Server misconfigured" (docs/api.md "Answers given word for word")
  const fixture = useTestServer({ WEBHOOK_SECRET: 'webhook-secret-of-the-property-walk-0123' });
  let admin: Client;
  let writes: WriteLog;
  let document: OpenApiDocument;
  const ids: Record<string, number> = {};

  const resolve = (schema: Schema | undefined): Schema => {
    let current = schema ?? {};
    for (let hops = 0; current.$ref && hops < 10; hops++) {
      const name = current.$ref.replace('#/components/schemas/', '');
      current = ((document.components?.['schemas'] as Record<string, Schema>)[name] ?? {}) as Schema;
    }
    return current;
  };

  /** A well-formed value where one is easy to make: examples and defaults first, then the type. */
  const plain = (raw: Schema | undefined, depth = 0): unknown => {
    const schema = resolve(raw);
    if (schema.example !== undefined) return schema.example;
    if (schema.examples?.length) return schema.examples[0];
    if (schema.default !== undefined) return schema.default;
    if (schema.const !== undefined) return schema.const;
    if (schema.enum?.length) return schema.enum[0];
    const branch = schema.anyOf?.[0] ?? schema.oneOf?.[0] ?? schema.allOf?.[0];
    if (branch) return plain(branch, depth + 1);
    const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
    if (type === 'object' && depth < 4) {
      const value: Record<string, unknown> = {};
      for (const key of schema.required ?? []) value[key] = plain(schema.properties?.[key], depth + 1);
      return value;
    }
    if (type === 'array') return [];
    if (type === 'integer' || type === 'number') return 1;
    if (type === 'boolean') return true;
    if (type === 'string') return 'walker';
    return null;
  };

  /** The paths of the fields a body has (top level and one level down), where a hostile value goes. */
  const fieldPaths = (raw: Schema | undefined, prefix: string[] = [], depth = 0): string[][] => {
    const schema = resolve(raw);
    const branch = schema.anyOf?.[0] ?? schema.oneOf?.[0] ?? schema.allOf?.[0];
    if (branch) return fieldPaths(branch, prefix, depth);
    if (!schema.properties || depth > 1) return [];
    return Object.entries(schema.properties).flatMap(([key, child]) => [
      [...prefix, key],
      ...fieldPaths(child, [...prefix, key], depth + 1),
    ]);
  };

  /** JSON text of `base` with the field at `path` replaced by `fragment` (raw bytes allowed). */
  const bodyWith = (base: unknown, path: string[], fragment: string | Buffer): Buffer => {
    let json = PLACEHOLDER_JSON;
    if (path.length > 0) {
      const isObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);
      const copy = (isObject(base) ? structuredClone(base) : {}) as Record<string, unknown>;
      let at = copy;
      for (const key of path.slice(0, -1)) {
        if (!isObject(at[key])) at[key] = {};
        at = at[key] as Record<string, unknown>;
      }
      at[path[path.length - 1] as string] = PLACEHOLDER;
      json = JSON.stringify(copy);
    }
    const [head, tail] = json.split(PLACEHOLDER_JSON) as [string, string];
    return Buffer.concat([Buffer.from(head), Buffer.from(fragment), Buffer.from(tail)]);
  };

  /** `/api/users/{id}` with the id of the walker's own fixture of that kind. */
  const concretePath = (path: string): string =>
    path.replace(/\{(\w+)\}/g, (_, name: string) => {
      if (name === 'customerId') return String(ids['customers']);
      const family = Object.keys(ids).find((prefix) => path.startsWith(`/api/${prefix}/`));
      return String(family ? ids[family] : 1);
    });

  before(async () => {
    const { db, server } = fixture;
    admin = await signedInAs(server.url, db.knex, 'ADMIN');
    const created = async (path: string, body: unknown) => {
      const reply = await admin.post(path, body);
      assert.ok(reply.status < 300, `${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
      return (reply.body as { id: number }).id;
    };
    ids['customers'] = await created('/api/customers', { name: 'Walker GmbH' });
    ids['clusters'] = await created('/api/clusters', { customerId: ids['customers'], name: 'walk' });
    const [system] = await db
      .knex('systems')
      .insert({ customer_id: ids['customers'], cluster_id: ids['clusters'], name: 'walked', hostname: 'walked' })
      .returning('id');
    ids['systems'] = (system as { id: number }).id;
    const [alert] = await db
      .knex('alerts')
      .insert({
        rule_key: 'cpu.high',
        rule_kind: 'metric',
        system_id: ids['systems'],
        customer_id: ids['customers'],
        instance: '',
        severity: 'WARNING',
        state: 'open',
        value: 99,
        message: 'cpu',
        started_at: new Date(),
      })
      .returning('id');
    ids['alerts'] = Number((alert as { id: string }).id);
    ids['alert-rules'] = ((await admin.get('/api/alert-rules')).body as { id: number }[])[0]?.id ?? 1;
    ids['event-rules'] = ((await admin.get('/api/event-rules')).body as { id: number }[])[0]?.id ?? 1;
    ids['maintenance-windows'] = await created('/api/maintenance-windows', {
      name: 'Walk',
      kind: 'once',
      startsAt: '2030-01-01T00:00:00Z',
      endsAt: '2030-01-01T01:00:00Z',
      scope: { type: 'customer', id: ids['customers'] },
    });
    ids['notification-channels'] = await created('/api/notification-channels', {
      name: 'Walk mail',
      type: 'email',
      target: 'walk@example.com',
      minSeverity: 'WARNING',
    });
    ids['agent-settings'] = await created('/api/agent-settings', {
      scope: { type: 'cluster', id: ids['clusters'] },
      key: 'interval',
      value: '30',
    });
    ids['users'] = (await createAccount(db.knex, { role: 'VIEWER' })).id;
    ids['tokens'] = await created('/api/tokens', { name: 'walk' });
    document = (await admin.get('/api/openapi.json')).body as OpenApiDocument;
    writes = await installWriteLog(db.knex);
  });

  it('answers no 5xx and stores nothing when it refuses', { timeout: 600_000 }, async () => {
    const send = async (method: string, path: string, body?: Buffer) => {
      const headers: Record<string, string> = {
        origin: fixture.server.url,
        cookie: admin.cookieHeader(),
        'x-csrf-token': admin.csrfToken ?? '',
      };
      if (body) headers['content-type'] = 'application/json';
      const reply = await fetch(`${fixture.server.url}${path}`, { method, headers, ...(body ? { body } : {}) });
      return { status: reply.status, text: await reply.text() };
    };
    /** The last problem met: after shrinking, the smallest request that shows it. */
    let problem = '';
    const check = async (what: string, route: string, request: () => ReturnType<typeof send>) => {
      const mark = await writes.mark();
      const reply = await request();
      if (reply.status >= 500 && DOCUMENTED_5XX[route] !== reply.status) {
        problem = `${what} → ${reply.status} ${reply.text.slice(0, 300)}`;
        return false;
      }
      if (reply.status < 400 || reply.status >= 500) return true;
      const written = await writes.tablesWrittenSince(mark, [...ALWAYS_WRITTEN, ...(WRITES_WHEN_REFUSED[route] ?? [])]);
      if (written.length) problem = `${what} → ${reply.status}, yet it wrote ${written.join(', ')}`;
      return written.length === 0;
    };
    const holds = async <T extends [unknown, ...unknown[]]>(property: fc.IAsyncProperty<T>, numRuns: number) => {
      const result = await fc.check(property, { numRuns });
      if (result.failed) assert.fail(`${problem} (fast-check seed ${result.seed})`);
    };

    let walked = 0;
    for (const [path, item] of Object.entries(document.paths)) {
      if (SKIP.includes(path)) continue;
      for (const [method, operation] of Object.entries(item as Record<string, Operation>)) {
        const schema = operation.requestBody?.content['application/json']?.schema;
        const queryNames = (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
        if (!schema && queryNames.length === 0) continue;
        walked += 1;
        const url = concretePath(path);
        if (schema) {
          const base = plain(schema);
          const fields = [[], ...fieldPaths(schema)];
          await holds(
            fc.asyncProperty(fc.constantFrom(...fields), hostileValue, async (field, fragment) => {
              const body = bodyWith(base, field, fragment);
              return check(
                `${method.toUpperCase()} ${path} with ${field.join('.') || 'the body'} = ${String(fragment).slice(0, 40)}`,
                path,
                () => send(method.toUpperCase(), url, body),
              );
            }),
            RUNS,
          );
        }
        if (queryNames.length) {
          await holds(
            fc.asyncProperty(
              fc.constantFrom(...queryNames, '__proto__', 'constructor'),
              hostileQueryValue,
              fc.boolean(),
              async (name, value, twice) => {
                const query = `${name}=${value}${twice ? `&${name}=${value}` : ''}`;
                return check(`${method.toUpperCase()} ${path}?${query.slice(0, 60)}`, path, () =>
                  send(
                    method.toUpperCase(),
                    `${url}?${query}`,
                    schema ? Buffer.from(JSON.stringify(plain(schema))) : undefined,
                  ),
                );
              },
            ),
            Math.ceil(RUNS / 2),
          );
        }
      }
    }
    assert.ok(walked > 40, `walked ${walked} routes`);
  });
});
