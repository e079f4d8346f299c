import assert from 'node:assert/strict';
import { auditTrailOn } from '../../testing/audit.js';
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import type { Principal, Role } from '../../lib/access.js';
import { errorMiddleware } from '../../http/error-middleware.js';
import { createSecretBox } from '../../lib/secret-box.js';
import { createMailer } from '../../mail/smtp-mailer.js';
import { createTestDatabase, type TestDatabase } from '../../testing/database.js';
import { captureLogger } from '../../testing/logger.js';
import { startSmtpSink, type SmtpSink } from '../../testing/smtp-sink.js';
import { smtpSettingsRoutes } from './routes.js';
import { mountRoutes } from '../../http/route.js';
import { createSmtpSettingsService } from './service.js';

const SMTP_PASSWORD = 'sink-Passw0rd-route-tests';

/** Stands in for the authentication middleware: the role comes from a test header. */
function testPrincipal(): Koa.Middleware {
  return async (ctx, next) => {
    const role = ctx.get('x-test-role') as Role | '';
    if (role) {
      const principal: Principal = {
        userId: 1,
        role,
        email: 'admin@example.com',
        via: 'session',
        sessionId: 'test',
        tokenId: null,
        customerIds: new Set(),
      };
      ctx.state.principal = principal;
    }
    await next();
  };
}

describe('/api/settings/smtp', () => {
  let db: TestDatabase;
  let sink: SmtpSink;
  let server: http.Server;
  let base: string;
  const logs = captureLogger();

  async function call(method: string, path: string, body?: unknown, role: Role | null = 'ADMIN') {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(role ? { 'x-test-role': role } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null, text };
  }

  function settings(overrides: Record<string, unknown> = {}) {
    return {
      enabled: true,
      host: '127.0.0.1',
      port: sink.port,
      encryption: 'none',
      user: 'argus',
      password: SMTP_PASSWORD,
      fromAddress: 'argus@example.com',
      fromName: 'Argus',
      ...overrides,
    };
  }

  before(async () => {
    db = await createTestDatabase();
    sink = await startSmtpSink({ auth: { user: 'argus', password: SMTP_PASSWORD } });
    const box = createSecretBox(
      { settingsEncryptionKey: null, authSecret: 'auth-secret-route-tests-0123456789ab' },
      logs.log,
    );
    const smtp = createSmtpSettingsService({ db: db.knex, audit: auditTrailOn(db.knex), box });
    const app = new Koa();
    app.silent = true;
    app.use(errorMiddleware(logs.log));
    app.use(koaBody());
    app.use(testPrincipal());
    const router = mountRoutes(smtpSettingsRoutes, { smtp, mailer: createMailer({ smtp, log: logs.log }) });
    app.use(router.routes()).use(router.allowedMethods());
    server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await sink.close();
    await db.drop();
  });

  it('is for administrators only: 401 signed out, 403 for operators and viewers', async () => {
    for (const [method, path] of [
      ['GET', '/api/settings/smtp'],
      ['PUT', '/api/settings/smtp'],
      ['POST', '/api/settings/smtp/test'],
    ] as const) {
      const body = method === 'GET' ? undefined : settings();
      assert.equal((await call(method, path, body, null)).status, 401, `${method} ${path}`);
      assert.equal((await call(method, path, body, 'OPERATOR')).status, 403, `${method} ${path}`);
      assert.equal((await call(method, path, body, 'VIEWER')).status, 403, `${method} ${path}`);
    }
    assert.equal((await call('GET', '/api/settings/smtp')).body.enabled, false, 'nothing was saved');
  });

  it('saves with PUT and answers passwordSet, never the password', async () => {
    const put = await call('PUT', '/api/settings/smtp', settings());
    assert.equal(put.status, 200);
    const { password: _password, ...visible } = settings();
    assert.deepEqual(put.body, { ...visible, passwordSet: true });
    const get = await call('GET', '/api/settings/smtp');
    assert.equal(get.status, 200);
    assert.ok(!get.text.includes(SMTP_PASSWORD));
    assert.equal(get.body.passwordSet, true);
    assert.equal(get.body.host, '127.0.0.1');
  });

  it('answers 400 naming the field for an incomplete or malformed block', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [settings({ host: '' }), 'host'],
      [settings({ port: 70000 }), 'port'],
      [settings({ port: '25' }), 'port'],
      [settings({ fromAddress: 'nobody' }), 'fromAddress'],
      [settings({ encryption: 'ssl' }), 'encryption'],
    ];
    for (const [body, field] of cases) {
      const answer = await call('PUT', '/api/settings/smtp', body);
      assert.equal(answer.status, 400, field);
      assert.equal(answer.body.details?.field, field);
      assert.equal(typeof answer.body.error, 'string');
    }
  });

  it('test-sends to the admin by default, or to the given address', async () => {
    await call('PUT', '/api/settings/smtp', settings());
    const count = sink.mails.length;
    const own = await call('POST', '/api/settings/smtp/test', {});
    assert.equal(own.status, 200);
    assert.deepEqual(own.body, { sent: true });
    assert.deepEqual((await sink.nthMail(count + 1)).to, ['admin@example.com']);

    assert.deepEqual((await call('POST', '/api/settings/smtp/test', { to: 'ops@example.org' })).body, { sent: true });
    assert.deepEqual((await sink.nthMail(count + 2)).to, ['ops@example.org']);
    assert.equal((await call('POST', '/api/settings/smtp/test', { to: 'not-an-address' })).body.details.field, 'to');
  });

  it('answers 502 naming what failed, without the password, when the server refuses', async () => {
    await call('PUT', '/api/settings/smtp', settings({ password: 'Wrong-Passw0rd-123' }));
    const answer = await call('POST', '/api/settings/smtp/test', {});
    assert.equal(answer.status, 502);
    assert.match(answer.body.error, /refused the login/);
    assert.ok(!answer.text.includes('Wrong-Passw0rd-123'));
    assert.ok(!answer.text.includes(SMTP_PASSWORD));
  });
});
