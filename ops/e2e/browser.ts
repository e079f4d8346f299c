/** Debian Chromium for the end-to-end tests: never a downloaded browser (see README "Tests"). */
import { chromium, type Browser, type Page } from 'playwright-core';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env['CHROME_BIN'] ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** Fills and sends the console's first-visit form at /setup (the page must be on it). */
export async function createAdministrator(
  page: Page,
  account: { name: string; email: string; username: string; password: string },
): Promise<void> {
  await page.getByLabel('Name', { exact: true }).fill(account.name);
  await page.getByLabel('E-mail address').fill(account.email);
  await page.getByLabel('Username (optional)').fill(account.username);
  await page.getByLabel('Password', { exact: true }).fill(account.password);
  await page.getByLabel('Confirm password').fill(account.password);
  await page.getByRole('button', { name: 'Create administrator' }).click();
}
