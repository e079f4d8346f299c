/**
 * GET /api/openapi.json: valid OpenAPI 3.1 by a maintained validator, complete
 * (every mounted route documented, nothing documented that is not mounted), public and free of
 * secrets; and a client generated from it alone (openapi-typescript + openapi-fetch) type-checks
 * and, with an API token, lists systems and acknowledges an alert. That every answer of the suite
 * matches the document is checked by every test server (testing/conformance.ts).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { Validator } from '@seriousme/openapi-schema-validator';
import openapiTS, { astToString } from 'openapi-typescript';
import { createCustomer } from '../testing/accounts.js';
import { useTestServer } from '../testing/app.js';
import { Client, signedInAs } from '../testing/http.js';
import { listRoutes } from './route-list.js';
import { API_VERSION, buildOpenApi, openApiPath, type OpenApiDocument } from './openapi.js';
import { declarationsOf, declaredRoutes, routersOf } from './route.js';

const run = promisify(execFile);
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const CRON_SECRET = 'cron-secret-for-the-openapi-test-0123456789';

describe('GET /api/openapi.json', () => {
  const fixture = useTestServer({ CRON_SECRET, WEBHOOK_SECRET: 'webhook-secret-for-the-openapi-test-0123' });
  const fetchDocument = async () => {
    const reply = await new Client(fixture.server.url).get('/api/openapi.json');
    assert.equal(reply.status, 200, 'public: no sign-in');
    return { document: reply.body as OpenApiDocument, text: JSON.stringify(reply.body) };
  };

  it('is valid OpenAPI 3.1 with the security schemes, and holds no secret', async () => {
    const { document, text } = await fetchDocument();
    assert.equal(document.openapi, '3.1.0');
    const result = await new Validator().validate(document as never);
    assert.deepEqual(result, { valid: true }, JSON.stringify(result).slice(0, 2000));
    const schemes = Object.keys((document.components?.['securitySchemes'] ?? {}) as object).sort();
    assert.deepEqual(schemes, [
      'agentJwt',
      'apiToken',
      'cronSecret',
      'csrfHeader',
      'enrollmentKey',
      'metricsToken',
      'sessionCookie',
    ]);
    for (const secret of [CRON_SECRET, 'webhook-secret-for-the-openapi-test', 'test-auth-secret'])
      assert.ok(!text.includes(secret), 'no configured secret in the document');
  });

  it('documents every mounted route and nothing else', async () => {
    const { document } = await fetchDocument();
    const mounted = new Set(
      listRoutes(fixture.server.app).map((r) => `${r.method.toLowerCase()} ${openApiPath(r.path)}`),
    );
    const documented = new Set(
      Object.entries(document.paths).flatMap(([path, item]) =>
        Object.keys(item)
          .filter((method) => METHODS.includes(method))
          .map((method) => `${method} ${path}`),
      ),
    );
    assert.deepEqual([...mounted].filter((route) => !documented.has(route)).sort(), [], 'mounted but not documented');
    assert.deepEqual([...documented].filter((route) => !mounted.has(route)).sort(), [], 'documented but not mounted');
    const ids = Object.values(document.paths).flatMap((item) =>
      Object.values(item as Record<string, { operationId?: string }>).map((op) => op.operationId),
    );
    assert.equal(new Set(ids).size, ids.length, 'operation ids are unique');
    for (const [path, item] of Object.entries(document.paths))
      for (const [method, op] of Object.entries(item as Record<string, { responses: object; security?: unknown[] }>)) {
        assert.ok(
          Object.keys(op.responses).some((s) => /^[23]/.test(s) || s === '426'),
          `${method} ${path} has an answer`,
        );
        assert.ok(Array.isArray(op.security), `${method} ${path} says who may call it`);
      }
  });

  it('is built from the very declarations the app mounts, each mounted as declared and documented once', async () => {
    const { document } = await fetchDocument();
    const app = fixture.server.app;
    const key = (route: { method: string; path: string | RegExp }) =>
      `${route.method.toLowerCase()} ${String(route.path)}`;
    const declaredRouters = routersOf(app).filter((router) => declarationsOf(router));
    assert.ok(declaredRouters.length >= 2, 'features mount declarations');
    for (const router of declaredRouters) {
      const mounted = router.stack.flatMap((layer) =>
        layer.methods.filter((method) => method !== 'HEAD').map((method) => key({ method, path: layer.path })),
      );
      assert.deepEqual(mounted, (declarationsOf(router) ?? []).map(key), 'a router serves exactly its declarations');
    }
    const declared = declaredRoutes(app);
    for (const route of declared) {
      const operation = document.paths[openApiPath(route.path)]?.[route.method] as { summary?: string } | undefined;
      assert.equal(operation?.summary, route.summary, `${key(route)} is documented from its declaration`);
    }
    const rebuilt = JSON.parse(JSON.stringify(buildOpenApi(declared, API_VERSION))) as OpenApiDocument;
    assert.deepEqual(document, rebuilt, 'the served document is the one the declarations build');
  });

  it('lets a client generated from it alone list systems and acknowledge an alert with a token', async () => {
    const { db, server } = fixture;
    const customerId = await createCustomer(db.knex, 'Generated client GmbH');
    const [system] = await db
      .knex('systems')
      .insert({ customer_id: customerId, name: 'web-1', hostname: 'web-1' })
      .returning('id');
    const systemId = (system as { id: number }).id;
    const [alert] = await db
      .knex('alerts')
      .insert({
        rule_key: 'cpu.high',
        rule_kind: 'metric',
        system_id: systemId,
        customer_id: customerId,
        instance: '',
        severity: 'WARNING',
        state: 'open',
        value: 97,
        message: 'cpu.usage_pct is 97 (> 85)',
        started_at: new Date(),
      })
      .returning('id');
    const browser = await signedInAs(server.url, db.knex, 'OPERATOR', [customerId]);
    const token = (await browser.post('/api/tokens', { name: 'generated client' })).body.token as string;

    const dir = join(process.cwd(), 'tmp', `openapi-client-${process.pid}`);
    await mkdir(dir, { recursive: true });
    try {
      const { document } = await fetchDocument();
      await writeFile(join(dir, 'argus-api.ts'), astToString(await openapiTS(document as never)));
      await writeFile(join(dir, 'package.json'), '{ "type": "module" }\n');
      await writeFile(
        join(dir, 'script.ts'),
        `import createClient from 'openapi-fetch';
import type { paths } from './argus-api.js';

const client = createClient<paths>({
  baseUrl: process.env['ARGUS_URL'],
  headers: { authorization: \`Bearer \${process.env['ARGUS_TOKEN']}\` },
});
const systems = await client.GET('/api/systems');
if (!systems.data) throw new Error(\`systems: \${systems.response.status}\`);
const web = systems.data.find((system) => system.hostname === 'web-1');
if (!web) throw new Error('web-1 is not listed');
const open = await client.GET('/api/alerts', { params: { query: { state: 'open', system: web.id } } });
const alert = open.data?.[0];
if (!alert) throw new Error('no open alert');
const ack = await client.POST('/api/alerts/{id}/ack', {
  params: { path: { id: String(alert.id) } },
  body: { note: 'seen by a generated client' },
});
if (!ack.data) throw new Error(\`ack: \${ack.response.status}\`);
console.log(JSON.stringify({ systems: systems.data.map((s) => s.name), acknowledged: ack.data.acknowledged, note: ack.data.ackNote }));
`,
      );
      // the generated types hold: the script type-checks against them, strictly
      const tsc = join(process.cwd(), 'node_modules/.bin/tsc');
      await run(tsc, [
        '--noEmit',
        '--strict',
        '--skipLibCheck',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        join(dir, 'script.ts'),
      ]);
      const { stdout } = await run(join(process.cwd(), 'node_modules/.bin/tsx'), [join(dir, 'script.ts')], {
        env: { ...process.env, ARGUS_URL: server.url, ARGUS_TOKEN: token },
      });
      assert.deepEqual(JSON.parse(stdout), {
        systems: ['web-1'],
        acknowledged: true,
        note: 'seen by a generated client',
      });
      const stored = await db
        .knex('alerts')
        .where({ id: (alert as { id: string }).id })
        .first();
      assert.ok(stored.acknowledged_at, 'the acknowledgement is stored');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
