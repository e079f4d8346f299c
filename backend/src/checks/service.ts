/**
 * Network checks: create, change, pause, delete, and "Try it now". Rights are those of the systems
 * of the check's customer: every account that sees the customer reads its checks, an OPERATOR of
 * the customer and an ADMIN write them. Every change writes its audit row in its own transaction.
 */
import {
  CHECK_STATES,
  locationSystem,
  SERVER_LOCATION,
  type Check,
  type CheckChanges,
  type CheckCreate,
  type CheckHeader,
  type CheckLocationResult,
  type CheckResult,
  type CheckSettings,
  type CheckTryBody,
  type ChecksSummary,
} from '../../../contracts/checks.js';
import { runProbe } from '../../../probes/probe.js';
import { canSeeCustomer, canWriteCustomer, visibleTo, type Principal } from '../lib/access.js';
import type { AuditActor, AuditTrail } from '../lib/audit-trail.js';
import type { Clock } from '../lib/clock.js';
import { Forbidden, Invalid, NotFound, TooMany } from '../lib/errors.js';
import type { OutboundPolicy } from '../lib/outbound-policy.js';
import type { SecretBox } from '../lib/secret-box.js';
import type { RateLimiter } from '../ratelimit/rate-limiter.js';
import { headersToSend, openSecretHeaders, sealSecretHeaders, withoutSecretValues } from './headers.js';
import { policyNetwork } from './network.js';
import type { CheckFields, CheckRow, ChecksRepo, LocationRow } from './repo.js';
import { isStale, quorumOf, resultJson } from './state.js';

export interface ChecksServiceDeps {
  repo: ChecksRepo;
  box: SecretBox;
  clock: Clock;
  audit: AuditTrail;
  policy: OutboundPolicy;
  /** Tells the runner a check changed (it reads the checks again). */
  changed(id: number): void;
  /** "Try it now" runs per account (TRY_LIMIT); none: unlimited (run-level tests). */
  tryLimit?: RateLimiter;
}

/** "Try it now" is an outbound request of the caller's choosing: a person's pace, not a scanner's. */
export const TRY_LIMIT = { name: 'check-try-account', points: 30, durationSeconds: 600, window: '10 minutes' } as const;

/** The settings as answered: a secret header's value is null, every header says whether it is secret. */
function answeredSettings(settings: Record<string, unknown>): Check['settings'] {
  const headers = (settings['headers'] as CheckHeader[] | undefined)?.map((h) => ({
    name: h.name,
    value: h.secret ? null : (h.value ?? null),
    secret: h.secret,
  }));
  return { ...settings, type: settings['type'] as Check['type'], ...(headers ? { headers } : {}) };
}

/** What each location sees, in the order of the check's locations (none yet: PENDING). */
function locationResults(
  row: CheckRow,
  seen: LocationRow[],
  names: Map<number, string>,
  nowMs: number,
): CheckLocationResult[] {
  return row.locations.map((location) => {
    const place = seen.find((l) => l.location === location);
    const system = locationSystem(location);
    return {
      location,
      name: system === null ? 'Argus' : (names.get(system) ?? location),
      state: place?.state ?? 'PENDING',
      stateSince: place?.stateSince?.toISOString() ?? null,
      failures: place?.failures ?? 0,
      lastResult: place?.lastResult ?? null,
      stale: place ? isStale(place, row.intervalS, nowMs) : false,
    };
  });
}

export function checkView(
  row: CheckRow,
  seen: LocationRow[] = [],
  names: Map<number, string> = new Map(),
  nowMs = Date.now(),
): Check {
  return {
    id: row.id,
    customerId: row.customerId,
    clusterId: row.clusterId,
    name: row.name,
    type: row.type,
    settings: answeredSettings(row.settings),
    intervalSeconds: row.intervalS,
    timeoutSeconds: row.timeoutS,
    retries: row.retries,
    retryIntervalSeconds: row.retryIntervalS,
    maxResponseMs: row.maxResponseMs,
    locations: row.locations,
    quorum: row.quorum,
    effectiveQuorum: quorumOf(row),
    enabled: row.enabled,
    state: row.state,
    stateSince: row.stateSince?.toISOString() ?? null,
    failures: row.failures,
    lastResult: row.lastResult as CheckResult | null,
    results: locationResults(row, seen, names, nowMs),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** What the audit log keeps: the check as answered (secret header values are never in it). */
const facts = (row: CheckRow) => {
  const {
    lastResult: _r,
    results: _l,
    effectiveQuorum: _q,
    state: _s,
    stateSince: _ss,
    failures: _f,
    createdAt: _c,
    updatedAt: _u,
    ...rest
  } = checkView(row);
  return rest as Record<string, unknown>;
};

/** Refuses what the schema cannot say: a bad URL or regular expression. */
function validate(settings: CheckSettings) {
  if (settings.type === 'http') {
    let url: URL;
    try {
      url = new URL(settings.url);
    } catch {
      throw new Invalid('settings.url: must be an http:// or https:// URL', { field: 'settings.url' });
    }
    if (url.username || url.password)
      throw new Invalid('settings.url: no user or password in the URL (use a secret header)', {
        field: 'settings.url',
      });
    if (settings.keywordIsRegex) {
      try {
        new RegExp(settings.keyword ?? '');
      } catch {
        throw new Invalid('settings.keyword: not a valid regular expression', { field: 'settings.keyword' });
      }
    }
  }
}

/** A timeout or retry interval longer than the interval itself cannot hold. */
function validateTiming(timing: { intervalS: number; timeoutS: number; retryIntervalS: number }) {
  if (timing.timeoutS >= timing.intervalS)
    throw new Invalid('timeoutSeconds: must be shorter than intervalSeconds', { field: 'timeoutSeconds' });
  if (timing.retryIntervalS > timing.intervalS)
    throw new Invalid('retryIntervalSeconds: must not be longer than intervalSeconds', {
      field: 'retryIntervalSeconds',
    });
}

/**
 * The header values to seal: a secret header without a value keeps the one stored under its name;
 * a header without a value that is not secret, or a new secret one without a value, is refused.
 */
function secretValues(settings: CheckSettings, stored: Record<string, string>): Record<string, string> {
  if (settings.type !== 'http') return {};
  const values: Record<string, string> = {};
  settings.headers.forEach((header: CheckHeader, i) => {
    const value = header.value ?? (header.secret ? stored[header.name] : undefined);
    if (value === undefined)
      throw new Invalid(`settings.headers.${i}.value: is required`, { field: `settings.headers.${i}.value` });
    if (header.secret) values[header.name] = value;
  });
  return values;
}

export function createChecksService(deps: ChecksServiceDeps) {
  const { repo, box, clock, audit } = deps;
  const network = policyNetwork(deps.policy);

  /** The checks as answered: with each location's result and the names of the agents among them. */
  async function views(rows: CheckRow[]): Promise<Check[]> {
    const seen = await repo.locationsOf(rows.map((r) => r.id));
    const agents = rows.flatMap((r) => r.locations.map(locationSystem)).filter((id): id is number => id !== null);
    const names = await repo.systemNames([...new Set(agents)]);
    const nowMs = clock.now().getTime();
    return rows.map((row) =>
      checkView(
        row,
        seen.filter((l) => l.checkId === row.id),
        names,
        nowMs,
      ),
    );
  }
  const view = async (row: CheckRow) => (await views([row]))[0] as Check;

  /**
   * Agents a check runs from must be systems with an agent of the check's customer; a location set
   * before (an agent since moved to another customer) may stay. The quorum cannot exceed the locations.
   */
  async function validateLocations(customerId: number, locations: string[], before: string[], quorum: number | null) {
    const added = locations.filter((l) => !before.includes(l));
    const ids = added.map(locationSystem).filter((id): id is number => id !== null);
    const agents = await repo.agentSystemsOf(customerId, ids);
    const unknown = added.findIndex((l) => l !== SERVER_LOCATION && !agents.has(locationSystem(l) as number));
    if (unknown >= 0) {
      const index = locations.indexOf(added[unknown] as string);
      throw new Invalid(`locations.${index}: must be "argus" or an agent of the check's customer`, {
        field: `locations.${index}`,
      });
    }
    if (quorum !== null && quorum > locations.length)
      throw new Invalid('quorum: cannot be more than the locations', { field: 'quorum' });
  }

  async function visible(principal: Principal, id: number): Promise<CheckRow> {
    const row = await repo.find(id);
    if (!row || !canSeeCustomer(principal, row.customerId)) throw new NotFound('No such check');
    return row;
  }

  async function writable(principal: Principal, id: number): Promise<CheckRow> {
    const row = await visible(principal, id);
    if (!canWriteCustomer(principal, row.customerId)) throw new Forbidden('You may not change this customer');
    return row;
  }

  function mayWrite(principal: Principal, customerId: number): void {
    if (!canSeeCustomer(principal, customerId)) throw new NotFound('No such customer');
    if (!canWriteCustomer(principal, customerId)) throw new Forbidden('You may not change this customer');
  }

  async function clusterOf(customerId: number, clusterId: number | null): Promise<void> {
    if (clusterId !== null && (await repo.clusterCustomer(clusterId)) !== customerId)
      throw new Invalid("clusterId: the cluster must belong to the check's customer", { field: 'clusterId' });
  }

  return {
    async list(principal: Principal, customerId: number | null): Promise<Check[]> {
      return views(await repo.list(visibleTo(principal), customerId));
    },

    /** Per visible customer with checks: how many are in each state. */
    async summary(principal: Principal): Promise<ChecksSummary> {
      const byCustomer = new Map<number, ChecksSummary[number]>();
      for (const { customerId, state, count } of await repo.countsByState(visibleTo(principal))) {
        const zero = Object.fromEntries(CHECK_STATES.map((s) => [s, 0])) as ChecksSummary[number]['byState'];
        const entry = byCustomer.get(customerId) ?? { customerId, total: 0, byState: zero };
        entry.byState[state] += count;
        entry.total += count;
        byCustomer.set(customerId, entry);
      }
      return [...byCustomer.values()];
    },

    async get(principal: Principal, id: number): Promise<Check> {
      return view(await visible(principal, id));
    },

    async create(actor: AuditActor, principal: Principal, body: CheckCreate): Promise<Check> {
      mayWrite(principal, body.customerId);
      await clusterOf(body.customerId, body.clusterId);
      const timing = {
        intervalS: body.intervalSeconds,
        timeoutS: body.timeoutSeconds,
        retryIntervalS: body.retryIntervalSeconds,
      };
      validate(body.settings);
      validateTiming(timing);
      await validateLocations(body.customerId, body.locations, [], body.quorum);
      const secrets = secretValues(body.settings, {});
      const fields: CheckFields = {
        customerId: body.customerId,
        clusterId: body.clusterId,
        name: body.name,
        type: body.settings.type,
        settings: withoutSecretValues(body.settings),
        sealedHeaders: null,
        ...timing,
        retries: body.retries,
        maxResponseMs: body.maxResponseMs,
        locations: body.locations,
        quorum: body.quorum,
        enabled: body.enabled,
      };
      const row = await repo.transaction(async (trx) => {
        const id = await repo.insert(fields, trx);
        // sealed under the check's own id: known only once the row exists
        const sealed = sealSecretHeaders(box, id, secrets);
        if (sealed) await repo.update(id, { sealedHeaders: sealed }, trx);
        const created = (await repo.find(id, trx)) as CheckRow;
        await audit.record(trx, actor, {
          action: 'check.create',
          targetType: 'check',
          targetId: id,
          customerId: created.customerId,
          after: facts(created),
        });
        return created;
      });
      deps.changed(row.id);
      return view(row);
    },

    async update(actor: AuditActor, principal: Principal, id: number, changes: CheckChanges): Promise<Check> {
      const current = await writable(principal, id);
      const clusterId = changes.clusterId === undefined ? current.clusterId : changes.clusterId;
      await clusterOf(current.customerId, clusterId);
      const timing = {
        intervalS: changes.intervalSeconds ?? current.intervalS,
        timeoutS: changes.timeoutSeconds ?? current.timeoutS,
        retryIntervalS: changes.retryIntervalSeconds ?? current.retryIntervalS,
      };
      const fields: Partial<CheckFields> = {
        ...(changes.name !== undefined ? { name: changes.name } : {}),
        clusterId,
        ...timing,
        ...(changes.retries !== undefined ? { retries: changes.retries } : {}),
        ...(changes.maxResponseMs !== undefined ? { maxResponseMs: changes.maxResponseMs } : {}),
        ...(changes.locations !== undefined ? { locations: changes.locations } : {}),
        ...(changes.quorum !== undefined ? { quorum: changes.quorum } : {}),
        ...(changes.enabled !== undefined && changes.enabled !== current.enabled ? { enabled: changes.enabled } : {}),
      };
      validateTiming(timing);
      // a check whose only place was an agent since deleted was paused: it runs again once it has one
      if ((changes.enabled ?? current.enabled) && !(changes.locations ?? current.locations).length)
        throw new Invalid('locations: name at least one place to run the check from', { field: 'locations' });
      await validateLocations(
        current.customerId,
        changes.locations ?? current.locations,
        current.locations,
        changes.quorum === undefined ? current.quorum : changes.quorum,
      );
      if (changes.settings) {
        validate(changes.settings);
        const secrets = secretValues(changes.settings, openSecretHeaders(box, id, current.sealedHeaders));
        fields.type = changes.settings.type;
        fields.settings = withoutSecretValues(changes.settings);
        fields.sealedHeaders = sealSecretHeaders(box, id, secrets);
      }
      const row = await repo.transaction(async (trx) => {
        await repo.update(id, fields, trx);
        const updated = (await repo.find(id, trx)) as CheckRow;
        await audit.record(trx, actor, {
          action: 'check.update',
          targetType: 'check',
          targetId: id,
          customerId: updated.customerId,
          before: facts(current),
          after: facts(updated),
        });
        return updated;
      });
      deps.changed(id);
      return view(row);
    },

    async remove(actor: AuditActor, principal: Principal, id: number): Promise<void> {
      const current = await writable(principal, id);
      await repo.transaction(async (trx) => {
        await repo.delete(id, trx);
        await audit.record(trx, actor, {
          action: 'check.delete',
          targetType: 'check',
          targetId: id,
          customerId: current.customerId,
          before: facts(current),
        });
      });
      deps.changed(id);
    },

    /**
     * "Try it now": the settings run once from the server, under the same address policy as the
     * runner. Answers what was measured, never the body. Writers of the customer only: it is an
     * outbound request of their choosing.
     */
    async tryNow(principal: Principal, body: CheckTryBody): Promise<CheckResult> {
      mayWrite(principal, body.customerId);
      validate(body.settings);
      const allowed = await deps.tryLimit?.consume(String(principal.userId));
      if (allowed && !allowed.allowed)
        throw new TooMany(
          allowed.retryAfterSeconds,
          `Too many checks tried from this account (at most ${TRY_LIMIT.points} in ${TRY_LIMIT.window}): try again later`,
        );
      const headers = headersToSend(body.settings, secretValues(body.settings, {}));
      const result = await runProbe(
        { settings: body.settings, headers, timeoutMs: body.timeoutSeconds * 1000, maxResponseMs: body.maxResponseMs },
        network,
        () => clock.now(),
      );
      return resultJson(result);
    },
  };
}

export type ChecksService = ReturnType<typeof createChecksService>;
