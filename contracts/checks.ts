/**
 * Network checks (docs/decisions.md "Network checks"): HTTP(S), TCP, DNS and ping checks of a
 * service from the outside, belonging to a customer (and optionally one of its clusters), run on
 * their interval from the server ("argus" location) and from agents of the customer ("system:<id>").
 * Their results are series of the check, and its state raises and resolves alerts like a system's.
 */
import { z } from 'zod';
import { id, instant, SAFE_NAME, SAFE_NAME_MESSAGE } from './common.js';

export const CHECK_TYPES = ['http', 'tcp', 'dns', 'ping'] as const;
export const CHECK_STATES = ['PENDING', 'UP', 'DOWN', 'DEGRADED', 'PAUSED'] as const;
/** The server's location; an agent's is `system:<its system id>`. */
export const SERVER_LOCATION = 'argus';
export const LOCATION_PATTERN = /^(argus|system:[1-9][0-9]{0,9})$/;
export const MAX_LOCATIONS = 20;
/** The agent that runs a check from `system:<id>`, or null for the server. */
export const locationSystem = (location: string): number | null =>
  location.startsWith('system:') ? Number(location.slice('system:'.length)) : null;
export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'OPTIONS'] as const;
export const DNS_RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'TXT', 'SRV', 'CAA'] as const;
export const MIN_INTERVAL_S = 20;
export const MAX_INTERVAL_S = 3600;
export const MAX_HEADERS = 20;

const text = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .trim()
    .min(1, 'is required')
    .max(max, 'is too long')
    .regex(SAFE_NAME, SAFE_NAME_MESSAGE);
const int = (min: number, max: number, what = `a whole number from ${min} to ${max}`) =>
  z
    .number({ error: `must be ${what}` })
    .int(`must be ${what}`)
    .min(min, `must be ${what}`)
    .max(max, `must be ${what}`);
/** A host name or an IP address: what a URL's host may be, without scheme, port or path. */
const host = text(253).regex(/^[A-Za-z0-9._:[\]-]+$/, 'must be a host name or an IP address');
const dbId = z.number({ error: 'must be an id' }).int('must be an id').positive('must be an id').max(2_147_483_647);

/** A header sent with an HTTP check; a secret one's value is sealed at rest and never answered. */
export const checkHeader = z.object({
  name: text(100).regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be an HTTP header name'),
  /** Omitted on a change of a secret header: the stored value stays. */
  value: z
    .string({ error: 'must be a string' })
    .max(4000, 'is too long')
    .regex(SAFE_NAME, SAFE_NAME_MESSAGE)
    .optional(),
  secret: z.boolean({ error: 'must be true or false' }).default(false),
});
export type CheckHeader = z.infer<typeof checkHeader>;

/** "200-299", "200,204,301-302": the statuses that count as up. */
const statusList = z
  .string({ error: 'must be a string' })
  .trim()
  .regex(/^[1-5][0-9]{2}(-[1-5][0-9]{2})?(,\s*[1-5][0-9]{2}(-[1-5][0-9]{2})?)*$/, 'must be statuses like 200-299,301');

export const httpSettings = z.object({
  type: z.literal('http'),
  url: z
    .string({ error: 'must be a string' })
    .trim()
    .max(2000, 'is too long')
    .regex(/^https?:\/\/[^\s]+$/i, 'must be an http:// or https:// URL'),
  method: z.enum(HTTP_METHODS, { error: `must be one of ${HTTP_METHODS.join(', ')}` }).default('GET'),
  expectedStatuses: statusList.default('200-299'),
  /** Must (or, with keywordAbsent, must not) appear in the first part of the body read. */
  keyword: z.string({ error: 'must be a string' }).max(500, 'is too long').optional(),
  keywordIsRegex: z.boolean({ error: 'must be true or false' }).default(false),
  keywordAbsent: z.boolean({ error: 'must be true or false' }).default(false),
  followRedirects: z.boolean({ error: 'must be true or false' }).default(true),
  verifyTls: z.boolean({ error: 'must be true or false' }).default(true),
  headers: z.array(checkHeader, { error: 'must be a list' }).max(MAX_HEADERS, `at most ${MAX_HEADERS}`).default([]),
});
export const tcpSettings = z.object({ type: z.literal('tcp'), host, port: int(1, 65535) });
export const dnsSettings = z.object({
  type: z.literal('dns'),
  name: host,
  recordType: z.enum(DNS_RECORD_TYPES, { error: `must be one of ${DNS_RECORD_TYPES.join(', ')}` }).default('A'),
  /** The resolver asked, "address" or "address:port"; absent: the server's own resolvers. */
  server: z
    .string({ error: 'must be a string' })
    .trim()
    .max(100, 'is too long')
    .regex(/^[0-9A-Fa-f.:[\]]+$/, 'must be an IP address, optionally with :port')
    .optional(),
  /** Up when some answer record contains it (an address, a name); absent: any answer. */
  expected: z.string({ error: 'must be a string' }).trim().max(500, 'is too long').optional(),
});
export const pingSettings = z.object({ type: z.literal('ping'), host, count: int(1, 10).default(3) });

export const checkSettings = z.discriminatedUnion('type', [httpSettings, tcpSettings, dnsSettings, pingSettings], {
  error: `type: must be one of ${CHECK_TYPES.join(', ')}`,
});
export type CheckSettings = z.infer<typeof checkSettings>;
export type HttpSettings = z.infer<typeof httpSettings>;
export type DnsSettings = z.infer<typeof dnsSettings>;

const timing = {
  intervalSeconds: int(MIN_INTERVAL_S, MAX_INTERVAL_S),
  timeoutSeconds: int(1, 60),
  /** Failed runs in a row before the check is DOWN: 0 means the first failure. */
  retries: int(0, 10),
  /** How often a failing check runs again (never slower than its interval). */
  retryIntervalSeconds: int(MIN_INTERVAL_S, MAX_INTERVAL_S),
  /** Slower than this (ms) is DEGRADED; absent: no limit. */
  maxResponseMs: int(1, 600_000).nullable(),
  /** "argus" (the server) and/or agents as "system:<id>", each once. */
  locations: z
    .array(
      z
        .string({ error: 'must be a string' })
        .regex(LOCATION_PATTERN, 'must be "argus" (the server) or "system:<id>" (an agent)'),
      { error: 'must be a list' },
    )
    .min(1, 'must name at least one location')
    .max(MAX_LOCATIONS, `must name at most ${MAX_LOCATIONS} locations`)
    .refine((list) => new Set(list).size === list.length, 'must name each location once'),
  /** How many locations must see the check down for it to be DOWN; null: all but one, at least one. */
  quorum: int(1, MAX_LOCATIONS).nullable(),
  enabled: z.boolean({ error: 'must be true or false' }),
};

export const checkCreate = z.object({
  customerId: dbId,
  clusterId: dbId.nullable().default(null),
  name: text(200),
  settings: checkSettings,
  intervalSeconds: timing.intervalSeconds.default(60),
  timeoutSeconds: timing.timeoutSeconds.default(10),
  retries: timing.retries.default(1),
  retryIntervalSeconds: timing.retryIntervalSeconds.default(20),
  maxResponseMs: timing.maxResponseMs.default(null),
  locations: timing.locations.default([SERVER_LOCATION]),
  quorum: timing.quorum.default(null),
  enabled: timing.enabled.default(true),
});
export type CheckCreate = z.infer<typeof checkCreate>;

/** PATCH: any field but the customer; `settings` is replaced whole (a secret header without value keeps its value). */
export const checkChanges = z
  .object({
    clusterId: dbId.nullable().optional(),
    name: text(200).optional(),
    settings: checkSettings.optional(),
    intervalSeconds: timing.intervalSeconds.optional(),
    timeoutSeconds: timing.timeoutSeconds.optional(),
    retries: timing.retries.optional(),
    retryIntervalSeconds: timing.retryIntervalSeconds.optional(),
    maxResponseMs: timing.maxResponseMs.optional(),
    locations: timing.locations.optional(),
    quorum: timing.quorum.optional(),
    enabled: timing.enabled.optional(),
  })
  .strict();
export type CheckChanges = z.infer<typeof checkChanges>;

/** "Try it now": a check's settings, run once from the server before saving. */
export const checkTryBody = z.object({
  customerId: dbId,
  settings: checkSettings,
  timeoutSeconds: timing.timeoutSeconds.default(10),
  maxResponseMs: timing.maxResponseMs.default(null),
});
export type CheckTryBody = z.infer<typeof checkTryBody>;

/**
 * One run's outcome: never the body of an answer (a check must not read another service for
 * whoever sets it up), only what it was measured by.
 */
export const checkResult = z.object({
  at: instant,
  up: z.boolean(),
  /** Why it failed, in a few words ("status 503", "keyword missing", "refused by policy: …"). */
  reason: z.string().nullable(),
  responseMs: z.number().nullable(),
  status: z.number().int().nullable().meta({ description: 'HTTP status of the last hop' }),
  keywordMatched: z.boolean().nullable(),
  certDaysLeft: z.number().nullable(),
  certValid: z.boolean().nullable(),
  packetLossPct: z.number().nullable(),
  slow: z.boolean(),
});
export type CheckResult = z.infer<typeof checkResult>;

/** Where a check ran from and what that place sees of it (the state before the quorum). */
export const checkLocationResult = z.object({
  location: z.string().meta({ description: '"argus" (the server) or "system:<id>" (an agent)' }),
  /** "Argus", or the agent's system name. */
  name: z.string(),
  state: z.enum(['PENDING', 'UP', 'DOWN', 'DEGRADED']),
  stateSince: instant.nullable(),
  failures: z.number().int(),
  lastResult: checkResult.nullable(),
  /** No result for a while (an agent away): its verdict does not count towards the check's state. */
  stale: z.boolean(),
});
export type CheckLocationResult = z.infer<typeof checkLocationResult>;

const answeredHeader = z.object({ name: z.string(), value: z.string().nullable(), secret: z.boolean() });
export const check = z.object({
  id,
  customerId: id,
  clusterId: id.nullable(),
  name: z.string(),
  type: z.enum(CHECK_TYPES),
  /** As stored; a secret header's value is null. */
  settings: z.looseObject({ type: z.enum(CHECK_TYPES), headers: z.array(answeredHeader).optional() }),
  intervalSeconds: z.number().int(),
  timeoutSeconds: z.number().int(),
  retries: z.number().int(),
  retryIntervalSeconds: z.number().int(),
  maxResponseMs: z.number().int().nullable(),
  locations: z.array(z.string()),
  /** As set; null: the default, all but one location and at least one. */
  quorum: z.number().int().nullable(),
  /** The locations that must see the check down for it to be DOWN, as it applies now. */
  effectiveQuorum: z.number().int(),
  enabled: z.boolean(),
  state: z.enum(CHECK_STATES),
  stateSince: instant.nullable(),
  /** Failed runs in a row. */
  failures: z.number().int(),
  lastResult: checkResult.nullable(),
  /** The newest result and state of each location, in the order of `locations`. */
  results: z.array(checkLocationResult),
  createdAt: instant,
  updatedAt: instant,
});
export type Check = z.infer<typeof check>;

/**
 * A check as its agent gets it in the answer to a report: what to run and how often, secret header
 * values in clear (like secret agent settings, to that agent only).
 */
export const agentCheck = z.object({
  id: dbId,
  settings: checkSettings,
  intervalSeconds: timing.intervalSeconds,
  timeoutSeconds: timing.timeoutSeconds,
  retryIntervalSeconds: timing.retryIntervalSeconds,
  maxResponseMs: timing.maxResponseMs,
});
export type AgentCheck = z.infer<typeof agentCheck>;

/** The quorum a check with `locations` places has when none is set: all but one, at least one. */
export const defaultQuorum = (locations: number): number => Math.max(1, locations - 1);

export const checksQuery = z.object({
  customer: z.coerce.number({ error: 'must be an id' }).int('must be an id').positive('must be an id').optional(),
});

/** How many checks of a customer are in each state: the overview's line per customer. */
export const checksSummary = z.array(
  z.object({
    customerId: id,
    total: z.number().int(),
    byState: z.object({
      PENDING: z.number().int(),
      UP: z.number().int(),
      DOWN: z.number().int(),
      DEGRADED: z.number().int(),
      PAUSED: z.number().int(),
    }),
  }),
);
export type ChecksSummary = z.infer<typeof checksSummary>;
