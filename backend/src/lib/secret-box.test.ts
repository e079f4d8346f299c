import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { captureLogger } from '../testing/logger.js';
import { createSecretBox } from './secret-box.js';

const AUTH = 'auth-secret-for-tests-0123456789abcdef';
const SEK = 'settings-key-for-tests-0123456789abcdef';

describe('secret box', () => {
  it('seals under SETTINGS_ENCRYPTION_KEY when set, and opens its own values', () => {
    const box = createSecretBox({ settingsEncryptionKey: SEK, authSecret: AUTH }, captureLogger().log);
    const sealed = box.seal('smtp-password', 'app_settings:smtp.password');
    assert.match(sealed, /^v1\.sek\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    assert.ok(!sealed.includes('smtp-password'));
    assert.equal(box.open(sealed, 'app_settings:smtp.password'), 'smtp-password');
    assert.notEqual(box.seal('x', 'p'), box.seal('x', 'p'), 'a fresh IV every time');
  });

  it('falls back to AUTH_SECRET and says so in the prefix', () => {
    const box = createSecretBox({ settingsEncryptionKey: null, authSecret: AUTH }, captureLogger().log);
    const sealed = box.seal('totp', 'users:totp_secret:1');
    assert.equal(box.sourceOf(sealed), 'auth');
    const upgraded = createSecretBox({ settingsEncryptionKey: SEK, authSecret: AUTH }, captureLogger().log);
    assert.equal(upgraded.open(sealed, 'users:totp_secret:1'), 'totp', 'old values still open after the key is set');
  });

  it('yields null and logs (without the value) for a wrong key, a tampered value or another place', () => {
    const logs = captureLogger();
    const box = createSecretBox({ settingsEncryptionKey: SEK, authSecret: AUTH }, logs.log);
    const other = createSecretBox(
      { settingsEncryptionKey: 'another-key-0123456789abcdefghijkl', authSecret: AUTH },
      logs.log,
    );
    const sealed = box.seal('hunter2-password', 'users:totp_secret:1');
    assert.equal(other.open(sealed, 'users:totp_secret:1'), null);
    assert.equal(box.open(sealed, 'users:totp_secret:2'), null, 'bound to its row');
    const tampered = sealed.slice(0, -2) + (sealed.endsWith('AA') ? 'BB' : 'AA');
    assert.equal(box.open(tampered, 'users:totp_secret:1'), null);
    assert.equal(box.open('plain text', 'users:totp_secret:1'), null);
    const withoutKey = createSecretBox({ settingsEncryptionKey: null, authSecret: AUTH }, logs.log);
    assert.equal(withoutKey.open(sealed, 'users:totp_secret:1'), null, 'a sek value needs the key');
    assert.equal(logs.lines().filter((line) => line['level'] === 50).length, 5);
    assert.ok(logs.lines().every((line) => !JSON.stringify(line).includes('hunter2')));
  });
});
