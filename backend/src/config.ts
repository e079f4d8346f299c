/**
 * Every environment variable of docs/operations.md "Application variables" and "Retention
 * variables", parsed and validated once. A malformed value throws a ConfigError whose message is
 * the one line start-up prints before exiting 1; a missing optional value gives its documented
 * default.
 */
import {
  ConfigError,
  integer,
  loadDatabaseUrl,
  loadRetentionConfig,
  value,
  type Env,
  type RetentionConfig,
} from '../../db/environment.js';
import { parseInterval, type Interval } from '../../db/interval.js';

export { ConfigError, loadDatabaseUrl, loadRetentionConfig, type RetentionConfig };

export interface DatabaseConfig {
  url: string;
  poolMax: number;
  statementTimeoutMs: number;
}

export interface AppConfig {
  nodeEnv: string;
  production: boolean;
  port: number;
  hostname: string;
  logLevel: string;
  database: DatabaseConfig;
  /** `memory://` selects the in-memory bus and rate limiter (demo only). */
  redisUrl: string;
  authSecret: string;
  /** Exact public base URL without trailing slash; '' when unset (the default: docs/operations.md "Application variables"). */
  authUrl: string;
  /** PUBLIC_URL, falling back to AUTH_URL (docs/protocol.md "Names"). */
  publicUrl: string;
  /** ALLOW_HTTP_PUBLIC_URL=true: the operator accepts a plain-http PUBLIC_URL off loopback in production. */
  allowHttpPublicUrl: boolean;
  /** Origins besides AUTH_URL's whose pages may sign in and write (ALLOWED_ORIGINS). */
  allowedOrigins: string[];
  webhookSecret: string | null;
  settingsEncryptionKey: string | null;
  cronSecret: string | null;
  /** METRICS_TOKEN: a Prometheus scraper's bearer for GET /api/metrics (null: only ADMIN API tokens). */
  metricsToken: string | null;
  /** ARGUS_ALLOW_PRIVATE_WEBHOOKS=true: channels may reach loopback, private and link-local addresses. */
  allowPrivateWebhooks: boolean;
  /** ARGUS_ALLOW_PRIVATE_CHECKS=true: network checks run from the server may reach them too. */
  allowPrivateChecks: boolean;
  /** Directory of the built console (index.html and assets). */
  staticDir: string;
  /** Agent builds: <version>/argus-agent-linux-<arch> and manifest.json (docs/protocol.md "Agent releases"). */
  agentDistDir: string;
  /** AGENT_ENROLL_PER_CLUSTER_PER_HOUR (default 1000): new systems one cluster may enrol in an hour. */
  enrollPerClusterPerHour: number;
  /**
   * AGENT_REPORTS_PER_SYSTEM_PER_MINUTE (default 600, at least 500): reports one system may have
   * accepted a minute. A request holds up to 500 reports (an agent's buffer), so a lower limit
   * would refuse a full buffer for ever.
   */
  reportsPerSystemPerMinute: number;
  /** bcrypt cost: 11; BCRYPT_COST lowers it for tests only (never below 10 in production). */
  bcryptCost: number;
  retention: RetentionConfig;
  /** AUDIT_RETENTION (default 400 days): audit log rows older than this are purged hourly. */
  auditRetention: Interval;
  /** Single sign-on with an OpenID provider (OIDC_*); null when OIDC_ISSUER_URL is unset. */
  sso: SsoConfig | null;
  /** Things worth a warning line at start; never contain secret values. */
  warnings: string[];
}

export interface SsoConfig {
  /** OIDC_ISSUER_URL: the issuer exactly as its discovery document and ID tokens name it. */
  issuer: string;
  clientId: string;
  /** OIDC_CLIENT_SECRET: sent to the token endpoint only; never logged. */
  clientSecret: string;
  /** OIDC_SCOPES (default `openid email profile`); `openid` is always asked for. */
  scopes: string[];
  /** OIDC_GROUPS_CLAIM (default `groups`): the ID token claim listing the user's groups. */
  groupsClaim: string;
  /** OIDC_BUTTON_NAME (default `single sign-on`): the sign-in page says "Sign in with <name>". */
  buttonName: string;
  /** OIDC_LINK_VERIFIED_EMAIL=true: a verified e-mail claim may link an existing local account. */
  linkVerifiedEmail: boolean;
  /** OIDC_CREATE_USERS (default true): a mapped user without an account gets one at first sign-in. */
  createUsers: boolean;
  /**
   * OIDC_GROUP_MAP (automated installs): the group mapping, in place of the one edited in the
   * console; customers by name. null: the console's.
   */
  groupMap: GroupMapEntry[] | null;
}

/** One provider group of OIDC_GROUP_MAP: its role and the customers (by name) it grants. */
export interface GroupMapEntry {
  group: string;
  role: 'ADMIN' | 'OPERATOR' | 'VIEWER';
  customers: string[];
}

const GROUP_MAP_ENTRY = /^(.+)=\s*(ADMIN|OPERATOR|VIEWER)\s*(?::(.*))?$/i;

/**
 * `group=ROLE[:customer,customer]; …` — the last `=ROLE` of an entry ends its group, so a group
 * named like a directory entry (`CN=Ops,OU=Groups`) fits; entries are separated by `;`.
 */
function groupMap(env: Env): GroupMapEntry[] | null {
  const raw = value(env, 'OIDC_GROUP_MAP');
  if (raw === undefined) return null;
  const seen = new Set<string>();
  return raw
    .split(';')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const match = GROUP_MAP_ENTRY.exec(entry);
      const group = match?.[1]?.trim();
      if (!match || !group || group.length > 200) {
        throw new ConfigError(
          `OIDC_GROUP_MAP: "${entry}" is not group=ROLE or group=ROLE:customer,customer (ROLE: ADMIN, OPERATOR, VIEWER)`,
        );
      }
      if (seen.has(group)) throw new ConfigError(`OIDC_GROUP_MAP: the group "${group}" is listed twice`);
      seen.add(group);
      const role = (match[2] as string).toUpperCase() as GroupMapEntry['role'];
      const customers = (match[3] ?? '')
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean);
      return { group, role, customers: role === 'ADMIN' ? [] : customers };
    });
}

/** A database interval, as the retention variables take it ("400 days", "13 months"). */
function retentionInterval(env: Env, name: string, fallback: string): Interval {
  const raw = value(env, name) ?? fallback;
  const parsed = parseInterval(raw);
  if (!parsed || parsed.ms <= 0) {
    throw new ConfigError(`${name} must be a database interval such as "90 days" or "13 months" (got "${raw}")`);
  }
  return parsed;
}

/** Placeholders shipped in .env.example; a secret equal to one is as good as none. */
const EXAMPLE_SECRETS = new Set(['change-me', 'changeme', 'replace-with-a-random-value']);
const MIN_SECRET_LENGTH = 32;

/** `true` or `false` (default false); anything else is a mistake worth stopping for. */
function flag(env: Env, name: string): boolean {
  const raw = value(env, name);
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new ConfigError(`${name} must be true or false`);
}

/**
 * METRICS_TOKEN, optional. New, so held to the rule the older secrets only warn about: at least 32
 * characters, no placeholder, no white space (it travels as `Authorization: Bearer <token>`).
 */
function metricsToken(env: Env): string | null {
  const token = value(env, 'METRICS_TOKEN');
  if (token === undefined) return null;
  if (/\s/.test(token)) throw new ConfigError('METRICS_TOKEN must not contain white space');
  const problem = secretWarning('METRICS_TOKEN', token);
  if (problem) throw new ConfigError(problem);
  return token;
}

/** A public base URL: http(s), scheme and host (and port) only, no trailing slash. */
function baseUrl(env: Env, name: string): string | undefined {
  const raw = value(env, name);
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL such as https://argus.example.com (got "${raw}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${name} must start with http:// or https:// (got "${raw}")`);
  }
  if (raw.endsWith('/')) throw new ConfigError(`${name} must not end with a slash (got "${raw}")`);
  if (url.pathname !== '/' || url.search || url.hash || url.username || url.password) {
    throw new ConfigError(`${name} must be scheme and host only, without a path (got "${raw}")`);
  }
  return raw;
}

export function loadDatabaseConfig(env: Env): DatabaseConfig {
  return {
    url: loadDatabaseUrl(env),
    poolMax: integer(env, 'DATABASE_POOL_MAX', 20, 1, 1000),
    statementTimeoutMs: integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 30_000, 0),
  };
}

function secretWarning(name: string, secret: string | undefined): string | null {
  if (secret === undefined) return null;
  if (EXAMPLE_SECRETS.has(secret.toLowerCase())) return `${name} is a placeholder value: generate a random one`;
  if (secret.length < MIN_SECRET_LENGTH) return `${name} is shorter than ${MIN_SECRET_LENGTH} characters`;
  return null;
}

function redisUrl(env: Env): string {
  const raw = value(env, 'REDIS_URL') ?? 'redis://127.0.0.1:6379';
  if (raw === 'memory://') return raw;
  try {
    const url = new URL(raw);
    if (url.protocol === 'redis:' || url.protocol === 'rediss:') return raw;
  } catch {
    // fall through to the error below
  }
  throw new ConfigError('REDIS_URL must be a redis:// or rediss:// URL (or memory:// for the demo)');
}

function bcryptCost(env: Env, production: boolean): number {
  const cost = integer(env, 'BCRYPT_COST', 11, 4, 15);
  if (production && cost < 10) throw new ConfigError('BCRYPT_COST below 10 is for tests only (NODE_ENV=production)');
  return cost;
}

/** ALLOWED_ORIGINS: comma-separated extra origins (`https://host[:port]`) whose pages may drive the console. */
function originList(env: Env, name: string): string[] {
  const raw = value(env, name);
  if (raw === undefined) return [];
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const single = baseUrl({ [name]: entry }, name);
      return new URL(single!).origin;
    });
}

/** http:// to a name or address other than localhost, 127.0.0.0/8 or ::1: cookies cross a network in clear. */
function plainHttpOffLoopback(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  if (protocol !== 'http:') return false;
  return !(hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname));
}

/**
 * In production, the URL agents fetch from (PUBLIC_URL, else AUTH_URL) must be https off loopback:
 * the installer and the agent's updates download an executable that runs as root or as the agent,
 * and its sha256 comes in the same answer, so whoever sits on the way could replace both. Refused
 * unless ALLOW_HTTP_PUBLIC_URL=true says the operator accepts that (then a warning at every start).
 */
function plainHttpPublicUrl(
  production: boolean,
  accepted: boolean,
  publicUrl: string | undefined,
  authUrl: string | undefined,
) {
  const url = publicUrl ?? authUrl;
  if (!production || url === undefined || !plainHttpOffLoopback(url)) return null;
  const name = publicUrl === undefined ? 'PUBLIC_URL (unset, so AUTH_URL)' : 'PUBLIC_URL';
  const why =
    `${name} is http:// on a host other than loopback: agents and the installer download executables ` +
    'that run as root or as the agent, with their checksums, from it, and anyone on the way could ' +
    'replace them';
  if (!accepted)
    throw new ConfigError(`${why}. Serve it over https://, or set ALLOW_HTTP_PUBLIC_URL=true to accept that`);
  return `${why} (accepted: ALLOW_HTTP_PUBLIC_URL=true)`;
}

/**
 * OIDC_*: all or nothing. The issuer must be https except on loopback (tests, a provider beside
 * Argus), and AUTH_URL must be set: the callback URL registered at the provider is built from it.
 */
function ssoConfig(env: Env, authUrl: string | undefined): SsoConfig | null {
  const issuer = value(env, 'OIDC_ISSUER_URL');
  const clientId = value(env, 'OIDC_CLIENT_ID');
  const clientSecret = value(env, 'OIDC_CLIENT_SECRET');
  if (issuer === undefined && clientId === undefined && clientSecret === undefined) return null;
  if (issuer === undefined || clientId === undefined || clientSecret === undefined) {
    throw new ConfigError('OIDC_ISSUER_URL, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are needed together');
  }
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new ConfigError(`OIDC_ISSUER_URL must be a URL such as https://login.example.com/realm (got "${issuer}")`);
  }
  if (url.protocol !== 'https:' && plainHttpOffLoopback(issuer)) {
    throw new ConfigError('OIDC_ISSUER_URL must be https:// (plain http only on loopback)');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ConfigError('OIDC_ISSUER_URL must be https://');
  if (authUrl === undefined) throw new ConfigError('OIDC_ISSUER_URL needs AUTH_URL: the callback URL is built from it');
  const scopes = (value(env, 'OIDC_SCOPES') ?? 'openid email profile').split(/[\s,]+/).filter(Boolean);
  return {
    issuer,
    clientId,
    clientSecret,
    scopes: scopes.includes('openid') ? scopes : ['openid', ...scopes],
    groupsClaim: value(env, 'OIDC_GROUPS_CLAIM') ?? 'groups',
    buttonName: value(env, 'OIDC_BUTTON_NAME') ?? 'single sign-on',
    linkVerifiedEmail: flag(env, 'OIDC_LINK_VERIFIED_EMAIL'),
    createUsers: value(env, 'OIDC_CREATE_USERS') === undefined ? true : flag(env, 'OIDC_CREATE_USERS'),
    groupMap: groupMap(env),
  };
}

export function loadConfig(env: Env = process.env): AppConfig {
  const database = loadDatabaseConfig(env);
  const retention = loadRetentionConfig(env);
  const authSecret = value(env, 'AUTH_SECRET');
  if (authSecret === undefined) throw new ConfigError('AUTH_SECRET is not set');
  const authUrl = baseUrl(env, 'AUTH_URL');
  const publicUrl = baseUrl(env, 'PUBLIC_URL');
  const allowedOrigins = originList(env, 'ALLOWED_ORIGINS');
  const webhookSecret = value(env, 'WEBHOOK_SECRET');
  const settingsEncryptionKey = value(env, 'SETTINGS_ENCRYPTION_KEY');
  const cronSecret = value(env, 'CRON_SECRET');
  const nodeEnv = value(env, 'NODE_ENV') ?? 'production';
  const allowPrivateWebhooks = flag(env, 'ARGUS_ALLOW_PRIVATE_WEBHOOKS');
  const allowPrivateChecks = flag(env, 'ARGUS_ALLOW_PRIVATE_CHECKS');

  const warnings: string[] = [];
  if (authUrl === undefined) {
    warnings.push(
      'AUTH_URL is not set: links in e-mails will have no host, and requests for any host name are served ' +
        '(no protection against DNS rebinding)',
    );
  }
  if (publicUrl === undefined && authUrl !== undefined) {
    warnings.push('PUBLIC_URL is not set: agent install and download URLs use AUTH_URL');
  }
  if (nodeEnv === 'production' && authUrl !== undefined && plainHttpOffLoopback(authUrl)) {
    warnings.push(
      'AUTH_URL is http:// on a host other than loopback: session cookies are sent without Secure; ' +
        'serve Argus through a TLS proxy and set AUTH_URL to its https:// URL',
    );
  }
  const allowHttpPublicUrl = flag(env, 'ALLOW_HTTP_PUBLIC_URL');
  const httpPublicUrl = plainHttpPublicUrl(nodeEnv === 'production', allowHttpPublicUrl, publicUrl, authUrl);
  if (httpPublicUrl) warnings.push(httpPublicUrl);
  if (webhookSecret === undefined) warnings.push('WEBHOOK_SECRET is not set: agents cannot be configured');
  if (cronSecret === undefined) warnings.push('CRON_SECRET is not set: the evaluation endpoint is open to anyone');
  if (settingsEncryptionKey === undefined) {
    warnings.push(
      'SETTINGS_ENCRYPTION_KEY is not set: stored secrets are encrypted with a key derived from AUTH_SECRET',
    );
  }
  for (const [name, secret] of [
    ['AUTH_SECRET', authSecret],
    ['WEBHOOK_SECRET', webhookSecret],
    ['SETTINGS_ENCRYPTION_KEY', settingsEncryptionKey],
  ] as const) {
    const warning = secretWarning(name, secret);
    if (warning) warnings.push(warning);
  }

  return {
    nodeEnv,
    production: nodeEnv === 'production',
    port: integer(env, 'PORT', 3000, 0, 65_535),
    hostname: value(env, 'HOSTNAME') ?? '0.0.0.0',
    logLevel: value(env, 'LOG_LEVEL') ?? 'info',
    database,
    redisUrl: redisUrl(env),
    authSecret,
    authUrl: authUrl ?? '',
    publicUrl: publicUrl ?? authUrl ?? '',
    allowHttpPublicUrl,
    allowedOrigins,
    webhookSecret: webhookSecret ?? null,
    settingsEncryptionKey: settingsEncryptionKey ?? null,
    cronSecret: cronSecret ?? null,
    metricsToken: metricsToken(env),
    allowPrivateWebhooks,
    allowPrivateChecks,
    staticDir: value(env, 'STATIC_DIR') ?? 'dist/frontend/browser',
    bcryptCost: bcryptCost(env, nodeEnv === 'production'),
    agentDistDir: value(env, 'AGENT_DIST_DIR') ?? 'agent-dist',
    enrollPerClusterPerHour: integer(env, 'AGENT_ENROLL_PER_CLUSTER_PER_HOUR', 1000, 1, 1_000_000),
    reportsPerSystemPerMinute: integer(env, 'AGENT_REPORTS_PER_SYSTEM_PER_MINUTE', 600, 500, 1_000_000),
    retention,
    auditRetention: retentionInterval(env, 'AUDIT_RETENTION', '400 days'),
    sso: ssoConfig(env, authUrl),
    warnings,
  };
}
