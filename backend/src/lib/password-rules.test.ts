import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validatePassword } from './password-rules.js';

const account = { email: 'Ada@Example.com', username: 'ada.lovelace' };

describe('password rule', () => {
  it('accepts 12 or more characters up to 72 bytes', () => {
    assert.equal(validatePassword('twelve chars', account), null);
    assert.equal(validatePassword('x'.repeat(72), account), null);
    assert.equal(validatePassword('ü'.repeat(36), account), null, '36 two-byte characters are 72 bytes');
  });

  it('refuses fewer than 12 characters, counting code points', () => {
    assert.match(validatePassword('eleven char', account) ?? '', /at least 12 characters/);
    assert.match(validatePassword('😀'.repeat(11), account) ?? '', /at least 12/, '11 emoji are 22 UTF-16 units');
  });

  it('refuses more than 72 bytes of UTF-8 instead of letting bcrypt truncate it', () => {
    assert.match(validatePassword('x'.repeat(73), account) ?? '', /at most 72 bytes/);
    assert.match(validatePassword('ü'.repeat(37), account) ?? '', /at most 72 bytes/, '37 characters, 74 bytes');
  });

  it('refuses the e-mail address or the username, whatever the case', () => {
    assert.match(validatePassword('ada@example.COM', account) ?? '', /e-mail address or the username/);
    const named = { email: 'a@b.example', username: 'Operator-Account' };
    assert.match(validatePassword('operator-account', named) ?? '', /username/);
    assert.equal(validatePassword('operator-account', { email: 'a@b.example', username: null }), null);
  });
});
