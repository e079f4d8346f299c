/**
 * Single sign-on end to end, as a person does it: the built console on the real server in
 * production mode behind the nginx example with TLS, a real OpenID provider (oidc-provider) on
 * loopback, driven in Debian Chromium: "Sign in with …", the provider's sign-in and consent pages,
 * back signed in with the mapped role; then the console's sign-out ends the provider's session too
 * (RP-initiated logout) and lands on the sign-in page.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createAccount } from '../../backend/src/testing/accounts.js';
import { createTestDatabase, type TestDatabase } from '../../backend/src/testing/database.js';
import { startTestProvider, type TestProvider } from '../../backend/src/testing/oidc-provider.js';
import { launchChromium } from './browser.js';
import { startProductionConsole, type ProductionConsole } from './production-console.js';

describe('single sign-on in a browser, behind the TLS proxy', () => {
  let db: TestDatabase;
  let op: TestProvider;
  let app: ProductionConsole;
  let browser: Browser;
  let page: Page;
  before(async () => {
    db = await createTestDatabase();
    app = await startProductionConsole(db.url, async (origin) => {
      op = await startTestProvider(`${origin}/api/auth/sso/callback`);
      return {
        OIDC_ISSUER_URL: op.issuer,
        OIDC_CLIENT_ID: op.clientId,
        OIDC_CLIENT_SECRET: op.clientSecret,
        OIDC_BUTTON_NAME: 'Example IdP',
        OIDC_GROUP_MAP: 'argus-admins=ADMIN',
      };
    });
    // an account exists, so the sign-in page is shown rather than /setup
    await createAccount(db.knex, { role: 'ADMIN' });
    op.accounts.set('alice', {
      email: 'alice@example.com',
      email_verified: true,
      name: 'Alice Example',
      groups: ['argus-admins'],
    });
    browser = await launchChromium();
    // nginx's certificate is self-signed
    page = await (await browser.newContext({ ignoreHTTPSErrors: true })).newPage();
    page.setDefaultTimeout(15_000);
  });
  after(async () => {
    await browser?.close();
    await app?.stop();
    await op?.stop();
    await db?.drop();
  });

  it('signs in through the provider with the mapped role, in a Secure session cookie', async () => {
    await page.goto(`${app.url}/login`);
    await page.getByRole('link', { name: 'Sign in with Example IdP' }).click();
    await page.waitForURL((url) => url.origin === op.issuer);
    await page.locator('input[name="login"]').fill('alice');
    await page.locator('input[name="password"]').fill('any');
    await page.locator('button[type="submit"]').click();
    // the provider's consent page
    await page.locator('button[type="submit"]').click();
    await page.waitForURL((url) => url.origin === app.url && url.pathname === '/');
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    const row = await db.knex('users').where({ email: 'alice@example.com' }).first();
    assert.equal(row.role, 'ADMIN');
    assert.equal(row.oidc_subject, 'alice');
    const session = (await page.context().cookies(app.url)).find((cookie) => cookie.name === 'argus.sid');
    assert.ok(session, 'the session cookie');
    assert.deepEqual([session.secure, session.httpOnly, session.sameSite], [true, true, 'Lax']);
  });

  it('signs out of Argus and of the provider, and comes back to the sign-in page', async () => {
    await page.getByRole('button', { name: /Alice Example/ }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.waitForURL((url) => url.origin === op.issuer);
    await page.getByRole('button', { name: /yes/i }).click();
    await page.waitForURL((url) => url.origin === app.url && url.pathname === '/login');
    assert.equal(
      await db
        .knex('sessions')
        .where({ user_id: (await db.knex('users').where({ email: 'alice@example.com' }).first()).id })
        .first(),
      undefined,
    );
    // the provider's session is gone too: it asks who signs in again
    await page.getByRole('link', { name: 'Sign in with Example IdP' }).click();
    await page.locator('input[name="login"]').waitFor();
  });
});
