import assert from 'node:assert/strict';
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT } from 'jose';
import { after, before, describe, it } from 'node:test';
import { createSystemsRepo } from '../systems/repo.js';
import { SECRET, startIngestHarness, type IngestHarness } from '../testing/ingest-harness.js';

describe('POST /api/webhook/metrics: agent JWT and agent key', () => {
  let h: IngestHarness;
  before(async () => {
    h = await startIngestHarness();
  });
  after(() => h.close());

  it('stores a report with a valid HS256 token and the bound agent key', async () => {
    const agent = await h.boundAgent();
    const reply = await h.post({ reports: [h.report(0, 4)] }, { token: await agent.token() });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.accepted, 1);
    assert.equal(await h.metricCount(agent.systemId), 4);
  });

  const refusals: [string, (sub: string, ak: string) => Promise<string>][] = [
    [
      'a token signed with another secret',
      (sub, ak) => h.token(sub, { ak, secret: 'another-secret-0123456789abcdef0123' }),
    ],
    ['alg none', async (sub, ak) => new UnsecuredJWT({ sub, ak, iat: now(), exp: now() + 300 }).encode()],
    ['HS512', (sub, ak) => h.token(sub, { ak, alg: 'HS512' })],
    [
      'RS256 (even with a kid or jwk header)',
      async (sub, ak) => {
        const { privateKey } = await generateKeyPair('RS256');
        return new SignJWT({ sub, ak, iat: now(), exp: now() + 300 })
          .setProtectedHeader({ alg: 'RS256', kid: 'attacker' })
          .sign(privateKey);
      },
    ],
    [
      'ES256',
      async (sub, ak) => {
        const { privateKey } = await generateKeyPair('ES256');
        return new SignJWT({ sub, ak, iat: now(), exp: now() + 300 })
          .setProtectedHeader({ alg: 'ES256' })
          .sign(privateKey);
      },
    ],
    ['an expired token', (sub, ak) => h.token(sub, { ak, iatOffsetS: -400 })],
    ['iat 6 minutes ahead', (sub, ak) => h.token(sub, { ak, iatOffsetS: 360 })],
    ['exp - iat over 300 s', (sub, ak) => h.token(sub, { ak, lifetimeS: 301 })],
    ['no exp', (sub, ak) => h.token(sub, { ak, omit: ['exp'] })],
    ['no iat', (sub, ak) => h.token(sub, { ak, omit: ['iat'] })],
    ['no sub', (sub, ak) => h.token(sub, { ak, omit: ['sub'] })],
    ['a missing agent key', (sub) => h.token(sub)],
    ['a wrong agent key', (sub) => h.token(sub, { ak: 'not-the-key-of-this-system-0123456789abcdef' })],
    ['garbage', async () => 'not.a.jwt'],
  ];
  function now() {
    return Math.floor(h.clock.now().getTime() / 1000);
  }

  for (const [name, makeToken] of refusals) {
    it(`answers 401 {error: "Unauthorized"} and stores nothing for ${name}`, async () => {
      const agent = await h.boundAgent();
      const reply = await h.post(
        { reports: [h.report()] },
        { token: await makeToken(agent.sub, agent.ak), ip: '10.1.0.1' },
      );
      assert.equal(reply.status, 401);
      assert.deepEqual(reply.body, { error: 'Unauthorized' });
      assert.equal(await h.metricCount(agent.systemId), 0);
      const row = await h.db.knex('systems').where({ id: agent.systemId }).first('last_seen_at');
      assert.equal(row.last_seen_at, null, 'the refused request left no trace');
    });
  }

  it('answers 401 without an Authorization header, or with a token that is not Bearer', async () => {
    assert.equal((await h.post({ reports: [h.report()] }, { ip: '10.1.0.2' })).status, 401);
    const agent = await h.boundAgent();
    const basic = await h.post(
      { reports: [h.report()] },
      { headers: { authorization: `Basic ${await agent.token()}` }, ip: '10.1.0.2' },
    );
    assert.equal(basic.status, 401);
  });

  it('ignores kid, jku and jwk headers: the key is always WEBHOOK_SECRET', async () => {
    const agent = await h.boundAgent();
    const { publicKey } = await generateKeyPair('ES256');
    const token = await new SignJWT({ sub: agent.sub, ak: agent.ak, iat: now(), exp: now() + 300 })
      .setProtectedHeader({
        alg: 'HS256',
        kid: 'other',
        jku: 'https://attacker.example/jwks',
        jwk: await exportJWK(publicKey),
      })
      .sign(new TextEncoder().encode(SECRET));
    assert.equal((await h.post({ reports: [h.report()] }, { token })).status, 200);
  });

  it('accepts a token issued up to 5 minutes ahead (clock skew) and remembers verified tokens', async () => {
    const agent = await h.boundAgent();
    const token = await agent.token({ iatOffsetS: 290 });
    assert.equal((await h.post({ reports: [h.report(0)] }, { token })).status, 200);
    assert.equal((await h.post({ reports: [h.report(1000)] }, { token })).status, 200);
  });

  it('stops accepting a remembered token once it expires', async () => {
    const agent = await h.boundAgent();
    const token = await agent.token();
    assert.equal((await h.post({ reports: [h.report(0)] }, { token })).status, 200);
    h.clock.advance(301_000);
    try {
      const reply = await h.post({ reports: [h.report(0)] }, { token, ip: '10.1.0.3' });
      assert.equal(reply.status, 401);
    } finally {
      h.clock.advance(-301_000);
    }
  });

  it('refuses a remembered token once its system is re-enrolled (key reset) or deleted, as an unremembered one', async () => {
    const systems = createSystemsRepo(h.db.knex);
    for (const [revoke, status, error] of [
      [(id: number) => systems.resetAgentKey(id), 401, 'Unauthorized'],
      [(id: number) => systems.delete(id), 403, 'Unknown agent'],
    ] as const) {
      const agent = await h.boundAgent();
      const token = await agent.token();
      // verified and remembered: the token alone is not checked again until its exp
      assert.equal((await h.post({ reports: [h.report(0)] }, { token })).status, 200);
      assert.equal((await h.post({ reports: [h.report(1000)] }, { token })).status, 200);
      const stored = await h.metricCount(agent.systemId);
      await revoke(agent.systemId);
      const reply = await h.post({ reports: [h.report(2000)] }, { token, ip: '10.1.0.4' });
      assert.equal(reply.status, status, reply.text);
      assert.deepEqual(reply.body, { error });
      assert.equal(await h.metricCount(agent.systemId), status === 403 ? 0 : stored, 'nothing more stored');
    }
  });

  it('rate-limits failed attempts per client address with 429 and Retry-After, other addresses unaffected', async () => {
    const agent = await h.boundAgent();
    const bad = await h.token(agent.sub, { secret: 'wrong-secret-wrong-secret-wrong-secret' });
    for (let i = 0; i < 60; i++)
      assert.equal((await h.post({ reports: [h.report()] }, { token: bad, ip: '10.9.9.9' })).status, 401);
    const limited = await h.post({ reports: [h.report()] }, { token: bad, ip: '10.9.9.9' });
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers['retry-after']) > 0);
    // agents behind the same NAT address with valid tokens keep reporting
    assert.equal((await h.post({ reports: [h.report()] }, { token: await agent.token(), ip: '10.9.9.9' })).status, 200);
    assert.equal((await h.post({ reports: [h.report()] }, { token: bad, ip: '10.9.9.10' })).status, 401);
  });
});

describe('POST /api/webhook/metrics without WEBHOOK_SECRET', () => {
  let h: IngestHarness;
  before(async () => {
    h = await startIngestHarness({ webhookSecret: null });
  });
  after(() => h.close());

  it('answers 500 {error: "Server misconfigured"}', async () => {
    const reply = await h.post({ reports: [h.report()] }, { token: await h.token('x') });
    assert.equal(reply.status, 500);
    assert.deepEqual(reply.body, { error: 'Server misconfigured' });
  });
});
