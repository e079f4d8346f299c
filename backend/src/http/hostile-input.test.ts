/**
 * No 500 for any input, at the body and query edge of every console route: NUL,
 * lone surrogates, bytes that are not UTF-8 and keys naming JavaScript's object machinery are
 * refused with a 400 naming the field, an oversized body with 413, an encoded one with 415, and a
 * refused request stores nothing.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { useTestServer } from '../testing/app.js';
import { signedInAs, type Client } from '../testing/http.js';
import { listRoutes } from './route-list.js';

/** Routes that read their own bodies or none of the console's: the agents' and the scheduler's. */
const OWN_PARSERS = ['/api/webhook/metrics', '/api/cron/evaluate-alerts', '/api/agent/'];
const WRITE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

describe('hostile input at the edge', () => {
  const fixture = useTestServer();
  let admin: Client;
  /** Sends raw bytes as the signed-in admin (cookie and CSRF header). */
  let send: (
    method: string,
    path: string,
    body: string | Buffer,
    headers?: Record<string, string>,
  ) => Promise<Response>;
  const rowCounts = async () => {
    const counts: Record<string, number> = {};
    for (const table of [
      'customers',
      'clusters',
      'systems',
      'users',
      'alert_rules',
      'maintenance_windows',
      'notification_channels',
    ])
      counts[table] = Number((await fixture.db.knex(table).count('* as n'))[0]?.n);
    return counts;
  };

  before(async () => {
    admin = await signedInAs(fixture.server.url, fixture.db.knex, 'ADMIN');
    const cookies = await admin.get('/api/auth/me');
    assert.equal(cookies.status, 200);
    send = (method, path, body, headers = {}) =>
      fetch(`${fixture.server.url}${path}`, {
        method,
        headers: {
          'content-type': 'application/json',
          cookie: admin.cookieHeader(),
          'x-csrf-token': admin.csrfToken ?? '',
          ...headers,
        },
        body,
      });
  });

  it('answers what is wrong with a customer name holding NUL, a lone surrogate or bytes that are not UTF-8', async () => {
    const before = await rowCounts();
    const cases: [string | Buffer, RegExp][] = [
      [JSON.stringify({ name: 'bad\u0000name' }), /^name: must not contain a NUL character$/],
      ['{"name":"lone \\ud800 surrogate"}', /^name: must be valid Unicode text/],
      [Buffer.from([...Buffer.from('{"name":"'), 0xff, 0xfe, ...Buffer.from('"}')]), /^body: is not valid UTF-8$/],
      ['{"name":"x","__proto__":{"admin":true}}', /^__proto__: is not an allowed name$/],
      ['{"name":"x","notes":{"constructor":{"prototype":1}}}', /^notes\.constructor: is not an allowed name$/],
      ['{"name":"x",', /^body: is not valid JSON/],
      ['{"name": 1e309}', /^name: /],
      // found by the property walk: a deep body overflowed the walk's stack (500), a null one passed as {}
      [`{"name":${'['.repeat(5000)}${']'.repeat(5000)}}`, /^name(\.0)+: is nested too deeply \(at most 32 levels\)$/],
      ['null', /expected object/i],
    ];
    for (const [body, message] of cases) {
      const reply = await send('POST', '/api/customers', body);
      const answer = (await reply.json()) as { error: string };
      assert.equal(reply.status, 400, `${String(body)} → ${reply.status} ${answer.error}`);
      assert.match(answer.error, message);
    }
    const large = await send('POST', '/api/customers', JSON.stringify({ name: 'x', notes: 'n'.repeat(300_000) }));
    assert.equal(large.status, 413);
    const gzip = await send('POST', '/api/customers', '{}', { 'content-encoding': 'gzip' });
    assert.equal(gzip.status, 415);
    const query = await admin.get('/api/alerts?state=%00');
    assert.equal(query.status, 400);
    assert.deepEqual(await rowCounts(), before, 'nothing stored');
  });

  it('never answers 5xx on any write route, whatever hostile body it gets', async () => {
    const routes = listRoutes(fixture.server.app).filter(
      (r) => WRITE.has(r.method) && !OWN_PARSERS.some((prefix) => r.path.startsWith(prefix)),
    );
    assert.ok(routes.length > 30, `${routes.length} write routes`);
    const before = await rowCounts();
    // refused at the edge, on every route
    const hostile: (string | Buffer)[] = [
      JSON.stringify({ name: '\u0000', email: 'a\u0000@example.com', routes: [{ channelIds: ['\u0000'] }] }),
      '{"name":"\\udfff","password":"\\ud83d"}',
      Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]),
      '{"__proto__":{"role":"ADMIN"}}',
      '{"constructor":{"name":"x"}}',
    ];
    // valid JSON of the wrong shape: each route's own validation answers (not on DELETE or sign-out,
    // which would end this admin's session or account)
    const odd: string[] = [
      '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]',
      JSON.stringify({ id: 2 ** 53 + 1, threshold: '1e309', limit: -1, items: new Array(5000).fill('x') }),
    ];
    for (const route of routes) {
      const path = route.path.replace(/:[a-zA-Z]+/g, '1');
      const safe = route.method !== 'DELETE' && !/logout|sign-?out/.test(route.path);
      for (const body of [...hostile, ...(safe ? odd : [])]) {
        const reply = await send(route.method, path, body);
        // the SMTP test's documented 502 names the mail server's failure (docs/api.md), not ours
        if (route.path === '/api/settings/smtp/test' && reply.status === 502) continue;
        assert.ok(
          reply.status < 500,
          `${route.method} ${route.path} with ${String(body).slice(0, 40)} → ${reply.status}`,
        );
      }
    }
    // the session may have been signed out by a logout route: count rows, not answers
    assert.deepEqual(await rowCounts(), before, 'nothing stored');
  });
});
