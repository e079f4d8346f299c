import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestServer, testConfig, type TestServer } from '../testing/app.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';

describe('console files and SPA fallback', () => {
  let dir: string;
  let db: TestDatabase;
  let server: TestServer;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'argus-static-'));
    await mkdir(path.join(dir, 'media'));
    await writeFile(path.join(dir, 'index.html'), '<!doctype html><title>Argus</title><app-root></app-root>');
    await writeFile(path.join(dir, 'main-ABCDEF12.js'), 'console.log(1)');
    await writeFile(path.join(dir, 'media', 'logo.svg'), '<svg/>');
    await mkdir(path.join(dir, 'vendor'));
    await writeFile(path.join(dir, 'vendor', 'renderer.js'), 'window.Renderer = 1;');
    await writeFile(path.join(os.tmpdir(), 'argus-secret.txt'), 'outside');
    db = await createTestDatabase();
    server = await startTestServer(testConfig(db.url, { STATIC_DIR: dir }));
  });
  after(async () => {
    await server.stop();
    await db.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves index.html for client-side routes (deep links)', async () => {
    for (const route of ['/', '/systems/42', '/login']) {
      const response = await fetch(server.url + route);
      assert.equal(response.status, 200, route);
      assert.match(response.headers.get('content-type') ?? '', /text\/html/);
      assert.match(await response.text(), /<app-root>/);
      assert.equal(response.headers.get('cache-control'), 'no-cache');
    }
  });

  it('serves hashed assets with a long cache and a content type', async () => {
    const response = await fetch(`${server.url}/main-ABCDEF12.js`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /javascript/);
    assert.match(response.headers.get('cache-control') ?? '', /immutable/);
    assert.equal((await fetch(`${server.url}/media/logo.svg`)).headers.get('content-type'), 'image/svg+xml');
  });

  it('answers 304 to a revalidation of an unchanged file without a hash (the API page renderer), 200 once it changes', async () => {
    const url = `${server.url}/vendor/renderer.js`;
    const first = await fetch(url);
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('cache-control'), 'no-cache');
    assert.equal(await first.text(), 'window.Renderer = 1;');
    const etag = first.headers.get('etag');
    assert.ok(etag);

    // as a browser revalidates (fetch() itself would add Cache-Control: no-cache, a forced reload)
    const revalidate = { 'if-none-match': etag, 'cache-control': 'max-age=0' };
    const again = await fetch(url, { headers: revalidate });
    assert.equal(again.status, 304);
    assert.equal(await again.text(), '');
    const app = await fetch(`${server.url}/systems/42`, { headers: revalidate });
    assert.equal(app.status, 200, "another file's tag does not match index.html");

    await writeFile(path.join(dir, 'vendor', 'renderer.js'), 'window.Renderer = 22;');
    const changed = await fetch(url, { headers: revalidate });
    assert.equal(changed.status, 200);
    assert.equal(await changed.text(), 'window.Renderer = 22;');
    assert.notEqual(changed.headers.get('etag'), etag);
  });

  it('answers 404 for a missing asset instead of the app', async () => {
    assert.equal((await fetch(`${server.url}/missing-ABCDEF12.js`)).status, 404);
  });

  it('never serves files outside the console directory', async () => {
    for (const probe of ['/..%2fargus-secret.txt', '/%2e%2e/argus-secret.txt', '/media/..%2f..%2fargus-secret.txt']) {
      const response = await fetch(server.url + probe);
      assert.notEqual(await response.text(), 'outside', probe);
    }
  });

  it('answers unknown API paths with a JSON 404, never the app', async () => {
    const response = await fetch(`${server.url}/api/nope`);
    assert.equal(response.status, 404);
    assert.deepEqual(await response.json(), { error: 'No such endpoint: GET /api/nope', code: 'not_found' });
  });

  it('sets the security headers on every answer', async () => {
    const response = await fetch(`${server.url}/`);
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(response.headers.get('x-frame-options'), 'DENY');
    assert.match(response.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
  });
});
