/**
 * Test support for single sign-on: an Argus server wired to a real OpenID provider (oidc-provider on
 * loopback), and the browser's round trip through the provider's sign-in and consent pages.
 */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { createAccount } from './accounts.js';
import { startTestServer, testConfig, type TestServer } from './app.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { Client } from './http.js';
import { freePort } from './net.js';
import { startTestProvider, type TestProvider } from './oidc-provider.js';
import { RedirectBrowser } from './redirect-browser.js';

export interface Fixture {
  db: TestDatabase;
  server: TestServer;
  op: TestProvider;
  url: string;
}

export function useSsoServer(env: Record<string, string> = {}): Fixture {
  const t = {} as Fixture;
  before(async () => {
    const port = await freePort();
    t.url = `http://127.0.0.1:${port}`;
    t.op = await startTestProvider(`${t.url}/api/auth/sso/callback`);
    t.db = await createTestDatabase();
    t.server = await startTestServer(
      testConfig(t.db.url, {
        PORT: String(port),
        AUTH_URL: t.url,
        OIDC_ISSUER_URL: t.op.issuer,
        OIDC_CLIENT_ID: t.op.clientId,
        OIDC_CLIENT_SECRET: t.op.clientSecret,
        OIDC_BUTTON_NAME: 'Example IdP',
        ...env,
      }),
    );
  });
  after(async () => {
    await t.server?.stop();
    await t.op?.stop();
    await t.db?.drop();
  });
  return t;
}

export async function adminClient(t: Fixture): Promise<Client> {
  const admin = await createAccount(t.db.knex, { role: 'ADMIN' });
  const client = new Client(t.url);
  await client.signIn(admin.email, admin.password);
  return client;
}

export async function customer(t: Fixture, name: string): Promise<number> {
  const [row] = await t.db.knex('customers').insert({ name }).returning<{ id: number }[]>('id');
  return (row as { id: number }).id;
}

/** The provider's callback URL for `login`, reached through its sign-in and consent pages. */
export function toCallback(t: Fixture, browser: RedirectBrowser, login: string, returnTo = '/systems') {
  const start = `${t.url}/api/auth/sso/start?returnTo=${encodeURIComponent(returnTo)}`;
  return browser.until(start, login, `${t.url}/api/auth/sso/callback`);
}

export async function signInThroughProvider(t: Fixture, login: string, returnTo?: string) {
  const browser = new RedirectBrowser();
  const callback = await toCallback(t, browser, login, returnTo);
  const landed = await browser.fetch(callback);
  return { browser, callback, landed };
}

export const refusal = (location: string | null) => {
  assert.ok(location, 'a redirect');
  const url = new URL(location);
  assert.equal(url.pathname, '/login');
  return url.searchParams.get('ssoError') ?? '';
};
