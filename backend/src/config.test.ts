import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig, loadRetentionConfig } from './config.js';

const BASE = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/argus', AUTH_SECRET: 'a'.repeat(40) };

function configError(env: Record<string, string>): string {
  try {
    loadConfig({ ...BASE, ...env });
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    return error.message;
  }
  assert.fail('expected the configuration to be refused');
}

describe('config', () => {
  it('gives the documented defaults when only the required variables are set', () => {
    const config = loadConfig(BASE);
    assert.equal(config.database.poolMax, 20);
    assert.equal(config.database.statementTimeoutMs, 30000);
    assert.equal(config.redisUrl, 'redis://127.0.0.1:6379');
    assert.equal(config.port, 3000);
    assert.equal(config.hostname, '0.0.0.0');
    assert.equal(config.nodeEnv, 'production');
    assert.equal(config.retention.chunkInterval.text, '1 day');
    assert.equal(config.retention.rawRetention.text, '7 days');
    assert.equal(config.retention.compressAfter.text, '2 days');
    assert.equal(config.retention.rollup5mRetention.text, '30 days');
    assert.equal(config.retention.rollup1hRetention.text, '400 days');
    assert.equal(config.retention.maxMigrateBytes, 21474836480);
    assert.equal(config.auditRetention.text, '400 days');
  });

  it('reads AUDIT_RETENTION as the other retentions are read', () => {
    assert.equal(loadConfig({ ...BASE, AUDIT_RETENTION: '13 months' }).auditRetention.ms, 13 * 30 * 86_400_000);
  });

  it('accepts the interval strings the docs show and normalises them', () => {
    const retention = loadRetentionConfig({
      METRICS_RAW_RETENTION: '12 hours',
      METRICS_5M_RETENTION: '14 days',
      METRICS_1H_RETENTION: '6 months',
      METRICS_CHUNK_INTERVAL: '1 day 12 hours',
    });
    assert.equal(retention.rawRetention.text, '12 hours');
    assert.equal(retention.rawRetention.ms, 12 * 3600_000);
    assert.equal(retention.rollup5mRetention.text, '14 days');
    assert.equal(retention.rollup1hRetention.text, '6 months');
    assert.equal(retention.chunkInterval.ms, 36 * 3600_000);
  });

  for (const [name, raw] of [
    ['METRICS_RAW_RETENTION', 'seven days'],
    ['METRICS_CHUNK_INTERVAL', '1 fortnight'],
    ['METRICS_COMPRESS_AFTER', '2 days; DROP TABLE metrics'],
    ['METRICS_5M_RETENTION', '0 days'],
    ['METRICS_1H_RETENTION', '-400 days'],
    ['AUDIT_RETENTION', 'forever'],
    ['AUDIT_RETENTION', '0 days'],
  ] as const) {
    it(`refuses a malformed ${name} and names it`, () => {
      assert.match(configError({ [name]: raw }), new RegExp(`^${name} must be a database interval`));
    });
  }

  for (const [name, raw] of [
    ['DATABASE_POOL_MAX', 'twenty'],
    ['DATABASE_POOL_MAX', '0'],
    ['DATABASE_STATEMENT_TIMEOUT_MS', '1.5'],
    ['PORT', '70000'],
    ['METRICS_MAX_MIGRATE_BYTES', '20GiB'],
    // a request holds up to 500 reports: below that a full buffer could never be stored
    ['AGENT_REPORTS_PER_SYSTEM_PER_MINUTE', '499'],
  ] as const) {
    it(`refuses ${name}=${raw} and names it`, () => {
      assert.match(configError({ [name]: raw }), new RegExp(`^${name} must be`));
    });
  }

  for (const [name, raw, why] of [
    ['AUTH_URL', 'https://argus.example.com/', 'slash'],
    ['AUTH_URL', 'https://argus.example.com/app', 'path'],
    ['PUBLIC_URL', 'argus.example.com', 'URL'],
    ['PUBLIC_URL', 'ftp://argus.example.com', 'http'],
  ] as const) {
    it(`refuses ${name}=${raw} (${why})`, () => {
      assert.match(configError({ [name]: raw }), new RegExp(`^${name} must`));
    });
  }

  it('refuses to start in production when agents would fetch executables over plain http, saying why', () => {
    for (const [env, named] of [
      [{ AUTH_URL: 'https://argus.example.com', PUBLIC_URL: 'http://agents.example.com' }, /^PUBLIC_URL is http:/],
      [{ AUTH_URL: 'http://argus.example.com' }, /^PUBLIC_URL \(unset, so AUTH_URL\) is http:/],
      [{ AUTH_URL: 'https://argus.example.com', PUBLIC_URL: 'http://192.0.2.2:3000' }, /^PUBLIC_URL is http:/],
    ] as const) {
      const message = configError({ ...env, NODE_ENV: 'production' });
      assert.match(message, named);
      assert.match(message, /download executables/);
      assert.match(message, /ALLOW_HTTP_PUBLIC_URL=true/);
    }
  });

  it('starts with a plain-http PUBLIC_URL when the operator accepts it, on loopback, or outside production', () => {
    const accepted = loadConfig({
      ...BASE,
      AUTH_URL: 'https://argus.example.com',
      PUBLIC_URL: 'http://agents.example.com',
      ALLOW_HTTP_PUBLIC_URL: 'true',
    });
    assert.equal(accepted.allowHttpPublicUrl, true);
    assert.ok(accepted.warnings.some((w) => /^PUBLIC_URL is http:.*accepted: ALLOW_HTTP_PUBLIC_URL=true/.test(w)));
    for (const url of ['http://localhost:3000', 'http://127.0.0.1:3000', 'http://127.1:8080', 'http://[::1]:3000'])
      assert.equal(loadConfig({ ...BASE, NODE_ENV: 'production', AUTH_URL: url }).publicUrl, url);
    const development = loadConfig({ ...BASE, NODE_ENV: 'development', PUBLIC_URL: 'http://agents.example.com' });
    assert.equal(development.publicUrl, 'http://agents.example.com');
    const https = loadConfig({ ...BASE, AUTH_URL: 'http://127.0.0.1:3000', PUBLIC_URL: 'https://agents.example.com' });
    assert.ok(!https.warnings.some((w) => w.includes('ALLOW_HTTP_PUBLIC_URL')));
    assert.match(configError({ ALLOW_HTTP_PUBLIC_URL: 'yes' }), /^ALLOW_HTTP_PUBLIC_URL must be true or false/);
  });

  it('says DATABASE_URL is not set when it is missing', () => {
    assert.throws(() => loadConfig({ AUTH_SECRET: 'x' }), { message: 'DATABASE_URL is not set' });
  });

  it('refuses to start without AUTH_SECRET', () => {
    assert.throws(() => loadConfig({ DATABASE_URL: BASE.DATABASE_URL }), { message: 'AUTH_SECRET is not set' });
  });

  it('tolerates missing optional variables with their documented defaults', () => {
    const config = loadConfig({ ...BASE, AUTH_URL: 'https://argus.example.com' });
    assert.equal(config.webhookSecret, null);
    assert.equal(config.cronSecret, null);
    assert.equal(config.settingsEncryptionKey, null);
    assert.equal(config.publicUrl, 'https://argus.example.com', 'PUBLIC_URL falls back to AUTH_URL');
    assert.ok(config.warnings.some((w) => w.startsWith('CRON_SECRET is not set')));
    assert.ok(config.warnings.some((w) => w.startsWith('PUBLIC_URL is not set')));
    assert.ok(config.warnings.some((w) => w.startsWith('WEBHOOK_SECRET is not set')));
  });

  it('keeps an explicit PUBLIC_URL and treats blank values as unset', () => {
    const config = loadConfig({
      ...BASE,
      AUTH_URL: 'https://argus.example.com',
      PUBLIC_URL: 'https://agents.example.com:8443',
      CRON_SECRET: '   ',
    });
    assert.equal(config.publicUrl, 'https://agents.example.com:8443');
    assert.equal(config.cronSecret, null);
  });

  it('warns about short or placeholder secrets without printing them', () => {
    const config = loadConfig({ ...BASE, AUTH_SECRET: 'short-secret', WEBHOOK_SECRET: 'change-me' });
    assert.ok(config.warnings.includes('AUTH_SECRET is shorter than 32 characters'));
    assert.ok(config.warnings.includes('WEBHOOK_SECRET is a placeholder value: generate a random one'));
    assert.ok(config.warnings.every((w) => !w.includes('short-secret') && !w.includes('change-me')));
  });

  it('takes an optional METRICS_TOKEN of 32 characters or more, refusing a weak one without printing it', () => {
    assert.equal(loadConfig(BASE).metricsToken, null);
    const token = 'metrics-token-0123456789abcdef0123';
    assert.equal(loadConfig({ ...BASE, METRICS_TOKEN: ` ${token} ` }).metricsToken, token);
    assert.equal(configError({ METRICS_TOKEN: 'short-token' }), 'METRICS_TOKEN is shorter than 32 characters');
    assert.equal(
      configError({ METRICS_TOKEN: 'change-me' }),
      'METRICS_TOKEN is a placeholder value: generate a random one',
    );
    assert.equal(configError({ METRICS_TOKEN: `${token} ${token}` }), 'METRICS_TOKEN must not contain white space');
  });

  it('keeps bcrypt at cost 11 unless a test lowers it, and never below 10 in production', () => {
    assert.equal(loadConfig(BASE).bcryptCost, 11);
    assert.equal(loadConfig({ ...BASE, NODE_ENV: 'test', BCRYPT_COST: '4' }).bcryptCost, 4);
    assert.match(configError({ BCRYPT_COST: '4' }), /^BCRYPT_COST below 10 is for tests only/);
  });

  it('accepts memory:// for the demo and refuses other schemes for REDIS_URL', () => {
    assert.equal(loadConfig({ ...BASE, REDIS_URL: 'memory://' }).redisUrl, 'memory://');
    assert.match(configError({ REDIS_URL: 'http://127.0.0.1:6379' }), /^REDIS_URL must be/);
  });
});

describe('single sign-on variables (OIDC_*)', () => {
  const OIDC = {
    AUTH_URL: 'https://argus.example.com',
    OIDC_ISSUER_URL: 'https://login.example.com/realms/ops',
    OIDC_CLIENT_ID: 'argus',
    OIDC_CLIENT_SECRET: 'client-secret-value',
  };

  it('is off without them, and gives the defaults with the three required ones', () => {
    assert.equal(loadConfig(BASE).sso, null);
    const sso = loadConfig({ ...BASE, ...OIDC }).sso;
    assert.deepEqual(sso?.scopes, ['openid', 'email', 'profile']);
    assert.equal(sso?.groupsClaim, 'groups');
    assert.equal(sso?.buttonName, 'single sign-on');
    assert.equal(sso?.linkVerifiedEmail, false);
    assert.equal(sso?.createUsers, true);
    assert.deepEqual(loadConfig({ ...BASE, ...OIDC, OIDC_SCOPES: 'email groups' }).sso?.scopes, [
      'openid',
      'email',
      'groups',
    ]);
  });

  it('refuses half a configuration, a plain-http issuer off loopback, and a missing AUTH_URL', () => {
    assert.match(configError({ ...OIDC, OIDC_CLIENT_SECRET: '' }), /needed together/);
    assert.match(configError({ ...OIDC, OIDC_ISSUER_URL: 'http://login.example.com' }), /must be https/);
    assert.equal(
      loadConfig({ ...BASE, ...OIDC, OIDC_ISSUER_URL: 'http://127.0.0.1:8080' }).sso?.issuer,
      'http://127.0.0.1:8080',
    );
    assert.match(configError({ ...OIDC, AUTH_URL: '' }), /needs AUTH_URL/);
    assert.match(configError({ ...OIDC, OIDC_LINK_VERIFIED_EMAIL: 'yes' }), /true or false/);
    assert.ok(
      !configError({ ...OIDC, OIDC_CLIENT_ID: '' }).includes('client-secret-value'),
      'no secret in the message',
    );
  });

  it('reads the group mapping of OIDC_GROUP_MAP, and refuses one it cannot read', () => {
    assert.equal(loadConfig({ ...BASE, ...OIDC }).sso?.groupMap, null);
    const map = loadConfig({
      ...BASE,
      ...OIDC,
      OIDC_GROUP_MAP: ' argus-admins=ADMIN:Acme ; acme-ops=operator:Acme, Acme East;CN=View,OU=Groups=VIEWER:Globex; ',
    }).sso?.groupMap;
    assert.deepEqual(map, [
      { group: 'argus-admins', role: 'ADMIN', customers: [] },
      { group: 'acme-ops', role: 'OPERATOR', customers: ['Acme', 'Acme East'] },
      { group: 'CN=View,OU=Groups', role: 'VIEWER', customers: ['Globex'] },
    ]);
    assert.match(
      configError({ ...OIDC, OIDC_GROUP_MAP: 'admins=ROOT' }),
      /OIDC_GROUP_MAP: "admins=ROOT" is not group=ROLE/,
    );
    assert.match(configError({ ...OIDC, OIDC_GROUP_MAP: 'ops' }), /OIDC_GROUP_MAP/);
    assert.match(configError({ ...OIDC, OIDC_GROUP_MAP: 'a=ADMIN;a=VIEWER' }), /"a" is listed twice/);
  });
});
