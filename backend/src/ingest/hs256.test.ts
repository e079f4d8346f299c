import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { jwtVerify } from 'jose';
import { NOT_PLAIN, verifyPlainHs256 } from './hs256.js';

const SECRET = 'hs256-unit-test-secret-0123456789abcdef';
const KEY = new TextEncoder().encode(SECRET);
const NOW_S = 1_795_000_000.25;

const b64 = (value: string | Buffer) => Buffer.from(value).toString('base64url');
const signed = (header: string, payload: string, secret = SECRET) =>
  `${header}.${payload}.${createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url')}`;

/** What jose's jwtVerify (the rules the agent verifier asks for) makes of a token: its payload or null. */
async function joseSays(token: string): Promise<Record<string, unknown> | null> {
  try {
    const { payload } = await jwtVerify(token, KEY, {
      algorithms: ['HS256'],
      requiredClaims: ['exp', 'iat', 'sub'],
      currentDate: new Date(NOW_S * 1000),
    });
    return { ...payload };
  } catch {
    return null;
  }
}

const iat = Math.floor(NOW_S);
const HEADERS = [
  { alg: 'HS256' },
  { alg: 'HS256', typ: 'JWT' },
  { typ: 'JWT', alg: 'HS256', kid: 'k1' },
  { alg: 'HS384' },
  { alg: 'none' },
  { alg: 'hs256' },
  { alg: 'HS256', crit: ['b64'], b64: true },
  { alg: 'HS256', crit: ['b64'], b64: false },
  { alg: 'HS256', crit: ['exp'] },
  { alg: 'HS256', b64: false },
  { alg: 'HS256', jku: 'https://attacker.example/keys' },
].map((header) => b64(JSON.stringify(header)));
const RAW_HEADERS = [
  '[]',
  '"HS256"',
  'null',
  '{"alg":"HS256"',
  '{"alg":"HS256","alg":"none"}',
  '{"alg":"HS256","alg":"HS256"}',
].map((text) => b64(text));

const PAYLOADS: unknown[] = [
  { sub: 'm1', iat, exp: iat + 300 },
  { sub: 'm1', ak: 'key', iat, exp: iat + 300 },
  { sub: 'm1', iat, exp: iat },
  { sub: 'm1', iat, exp: iat + 1 },
  { sub: 'm1', iat, exp: iat - 10 },
  { sub: 'm1', iat, exp: `${iat + 300}` },
  { sub: 'm1', iat, exp: null },
  { sub: 'm1', iat: `${iat}`, exp: iat + 300 },
  { sub: 'm1', iat: null, exp: iat + 300 },
  { sub: 'm1', exp: iat + 300 },
  { iat, exp: iat + 300 },
  { sub: 'm1', iat },
  { sub: 42, iat, exp: iat + 300 },
  { sub: 'm1', iat, exp: iat + 300, nbf: iat },
  { sub: 'm1', iat, exp: iat + 300, nbf: iat + 1 },
  { sub: 'm1', iat, exp: iat + 300, nbf: 'soon' },
  { sub: 'm1', iat: iat + 10_000, exp: iat + 300 },
  { sub: 'm1', iat, exp: iat + 300.5, extra: { nested: [1, 2] } },
  [{ sub: 'm1', iat, exp: iat + 300 }],
  'text',
  17,
  null,
];
const RAW_PAYLOADS = [
  Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]), // {"\xff":1}: not UTF-8
  Buffer.from('{"sub":"m1",'),
  Buffer.from(`{"sub":"m1","iat":${iat},"exp":${iat + 300},"sub":"m2"}`),
  Buffer.from(`{"__proto__":{"x":1},"sub":"m1","iat":${iat},"exp":${iat + 300}}`),
];

function tokens(): string[] {
  const out: string[] = [];
  const payloads = [...PAYLOADS.map((p) => b64(JSON.stringify(p))), ...RAW_PAYLOADS.map((p) => b64(p))];
  for (const header of [...HEADERS, ...RAW_HEADERS]) {
    for (const payload of payloads) {
      const token = signed(header, payload);
      out.push(token, signed(header, payload, `${SECRET}x`));
    }
  }
  const usual = signed(HEADERS[1] as string, b64(JSON.stringify(PAYLOADS[0])));
  const [h, p, s] = usual.split('.') as [string, string, string];
  out.push(
    `${usual}.`,
    `${h}.${p}`,
    `${h}.${p}.${s.slice(0, -1)}`,
    `${h}.${p}.${s}A`,
    `${h}.${p}.${s}=`,
    `${h}.${p}.${s.slice(0, -2)}`,
    ` ${usual}`,
    `${h}=.${p}.${s}`,
    `${h}.${p}.${Buffer.from(s, 'base64url').toString('base64')}`,
    `${h}.${p}.${s.slice(0, -1)}${s.endsWith('A') ? 'B' : 'A'}`,
    `${h}.${p}..`,
    '',
    '..',
  );
  return out;
}

describe('plain HS256 tokens checked with node:crypto', () => {
  it("gives jose's answer for every token it judges, and leaves the unusual ones to jose", async () => {
    let judged = 0;
    let valid = 0;
    for (const token of tokens()) {
      const plain = verifyPlainHs256(token, KEY, NOW_S);
      if (plain === NOT_PLAIN) continue;
      judged += 1;
      const expected = await joseSays(token);
      if (expected) valid += 1;
      assert.deepEqual(plain === null ? null : { ...plain }, expected, token);
    }
    // the usual shapes are judged here (not all passed on), valid and invalid ones alike
    assert.ok(judged > 200, `${judged} judged`);
    assert.ok(valid >= 12, `${valid} valid`);
  });

  it("judges the agent's own token, and passes `crit`, `b64`, another algorithm and odd encodings on", () => {
    const payload = b64(JSON.stringify(PAYLOADS[1]));
    assert.deepEqual(verifyPlainHs256(signed(HEADERS[1] as string, payload), KEY, NOW_S), PAYLOADS[1]);
    for (const header of HEADERS.slice(3)) {
      assert.equal(
        verifyPlainHs256(signed(header, payload), KEY, NOW_S),
        NOT_PLAIN,
        Buffer.from(header, 'base64url').toString(),
      );
    }
    const [h, p, s] = signed(HEADERS[0] as string, payload).split('.') as [string, string, string];
    // padding, a fourth part, a length no base64url text has (4n + 1), the standard alphabet
    for (const odd of [`${h}.${p}.${s}=`, `${h}.${p}.${s}.x`, `${h}.${p}.${s}AA`, `${h}.${p}.${s.slice(0, -1)}+`])
      assert.equal(verifyPlainHs256(odd, KEY, NOW_S), NOT_PLAIN, odd);
  });
});
