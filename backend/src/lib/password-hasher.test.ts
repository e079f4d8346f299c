import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import bcrypt from 'bcryptjs';
import { createPasswordHasher } from './password-hasher.js';

describe('password hasher', () => {
  it('writes standard bcrypt hashes of the asked cost and verifies them', async () => {
    const hasher = createPasswordHasher(4);
    try {
      const hash = await hasher.hash('correct horse battery staple');
      assert.match(hash, /^\$2[aby]\$04\$/);
      assert.equal(bcrypt.compareSync('correct horse battery staple', hash), true, 'same format as bcryptjs');
      assert.equal(await hasher.verify('correct horse battery staple', hash), true);
      assert.equal(await hasher.verify('wrong', hash), false);
      assert.equal(await hasher.verify('anything', 'not-a-hash'), false);
    } finally {
      await hasher.close();
    }
  });

  it('keeps the event loop free while hashing at cost 11', async () => {
    const hasher = createPasswordHasher(11);
    try {
      let ticks = 0;
      const timer = setInterval(() => ticks++, 10);
      const started = Date.now();
      await Promise.all([hasher.hash('a'.repeat(20)), hasher.hash('b'.repeat(20))]);
      clearInterval(timer);
      const elapsed = Date.now() - started;
      // a blocked loop would tick ~0 times; a free one about elapsed/10
      assert.ok(ticks >= elapsed / 10 / 3, `${ticks} ticks in ${elapsed} ms`);
    } finally {
      await hasher.close();
    }
  });
});
