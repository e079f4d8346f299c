/**
 * Agent settings (docs/operations.md "Settings edited at runtime"): key/values per cluster and per
 * system, layered (cluster first, system on top). A secret is sealed at rest, write-only in the
 * console API (its value is never returned), and opened only for the ingest answer to the agent
 * of the system it applies to.
 */
import type { Bus } from '../bus/bus.js';
import { publishChange } from '../bus/changes.js';
import { canSeeCustomer, canWriteCustomer, type Principal } from '../lib/access.js';
import { Conflict, Forbidden, Invalid, NotFound } from '../lib/errors.js';
import type { AuditActor, AuditTrail } from '../lib/audit-trail.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { SecretBox } from '../lib/secret-box.js';
import { places } from '../secrets/places.js';
import { coalescedLoads } from '../lib/coalesced-loads.js';
import type { AgentSettingRow, AgentSettingsRepo, Scope, ScopeOwner } from './repo.js';

/** A setting as the console sees it: a secret's value is always null. */
export interface AgentSettingView {
  id: number;
  scope: Scope;
  key: string;
  secret: boolean;
  value: string | null;
  updatedAt: string;
}

/** One key of a system's effective settings and the layer it comes from. */
export interface EffectiveEntry {
  key: string;
  secret: boolean;
  value: string | null;
  from: Scope;
}

export interface ScopeListing {
  settings: AgentSettingView[];
  /** For a system: what its agent gets (cluster layer, then the system's own on top), secrets masked. */
  effective?: EffectiveEntry[];
}

export interface NewAgentSetting {
  scope: Scope;
  key: string;
  value: string;
  secret: boolean;
}

export interface AgentSettingChanges {
  value?: string | undefined;
  secret?: boolean | undefined;
}

/** Settings edited by SQL (or a system moved to another cluster) reach agents within this time. */
export const EFFECTIVE_CACHE_TTL_MS = 30_000;
const EFFECTIVE_CACHE_MAX = 10_000;

/**
 * What the audit log keeps of a setting: a secret's stored (sealed) value under `secretValue`, which
 * the log replaces by "[sealed]" (a change still shows as changed); a plain value as it is.
 */
const settingFacts = (row: AgentSettingRow) =>
  row.secret
    ? { scope: row.scope, key: row.key, kind: 'secret', secretValue: row.value }
    : { scope: row.scope, key: row.key, kind: 'plain', value: row.value };

const view = (row: AgentSettingRow): AgentSettingView => ({
  id: row.id,
  scope: row.scope,
  key: row.key,
  secret: row.secret,
  value: row.secret ? null : row.value,
  updatedAt: row.updatedAt.toISOString(),
});

/** Cluster rows first, the system's own on top: a key set on the system wins. */
function layered(rows: AgentSettingRow[]): Map<string, AgentSettingRow> {
  const byKey = new Map<string, AgentSettingRow>();
  for (const row of rows.filter((r) => r.scope.type === 'cluster')) byKey.set(row.key, row);
  for (const row of rows.filter((r) => r.scope.type === 'system')) byKey.set(row.key, row);
  return new Map([...byKey].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export interface AgentSettingsDeps {
  repo: AgentSettingsRepo;
  box: SecretBox;
  clock: Clock;
  log: Logger;
  /** Consoles that show agent settings hear of changes here (bus/changes.ts); optional for tests. */
  bus?: Bus;
  audit: AuditTrail;
}

export function createAgentSettingsService({ repo, box, clock, log, bus, audit }: AgentSettingsDeps) {
  // effective settings per system id for the ingest answers (~1,000/s): every write here empties it
  const cache = new Map<number, { at: number; settings: Record<string, string | null> }>();
  // a load that started before a write must not put its older answer into the emptied cache
  let generation = 0;

  /** Every write: the cache empties, and the consoles showing the customer's settings reload. */
  async function written(id: number, customerId: number): Promise<void> {
    invalidate();
    if (bus) await publishChange(bus, { topic: 'agent-settings', ids: [id], reach: { customerId } });
  }

  function invalidate(): void {
    generation++;
    cache.clear();
  }

  async function visibleScope(principal: Principal, scope: Scope): Promise<ScopeOwner> {
    const owner = await repo.findScopeOwner(scope);
    if (!owner || !canSeeCustomer(principal, owner.customerId)) throw new NotFound(`No such ${scope.type}`);
    return owner;
  }

  async function writableScope(principal: Principal, scope: Scope): Promise<ScopeOwner> {
    const owner = await visibleScope(principal, scope);
    if (!canWriteCustomer(principal, owner.customerId)) throw new Forbidden('You may not change this customer');
    return owner;
  }

  /** A setting the account may change; one of a customer it may not see does not exist for it. */
  async function writableSetting(principal: Principal, id: number): Promise<AgentSettingRow & ScopeOwner> {
    const row = await repo.find(id);
    const owner = row && (await repo.findScopeOwner(row.scope));
    if (!row || !owner || !canSeeCustomer(principal, owner.customerId)) throw new NotFound('No such agent setting');
    if (!canWriteCustomer(principal, owner.customerId)) throw new Forbidden('You may not change this customer');
    return { ...row, ...owner };
  }

  const sealFor = (id: number, value: string, secret: boolean) =>
    secret ? box.seal(value, places.agentSetting(id)) : value;

  /** The settings a system's layers give its agent: secrets opened. */
  function effective(systemId: number, layers: AgentSettingRow[]): Record<string, string | null> {
    const settings: Record<string, string | null> = {};
    for (const [key, row] of layered(layers)) {
      if (!row.secret) settings[key] = row.value;
      else {
        // docs/operations.md "Stored secrets": a value that does not open is logged (by the box) and yields null
        const opened = box.open(row.value, places.agentSetting(row.id));
        if (opened === null) log.warn({ systemId, key, settingId: row.id }, 'Agent secret setting sent as null');
        settings[key] = opened;
      }
    }
    return settings;
  }

  function remember(systemId: number, at: number, settings: Record<string, string | null>): void {
    cache.delete(systemId);
    if (cache.size >= EFFECTIVE_CACHE_MAX) cache.delete(cache.keys().next().value as number);
    cache.set(systemId, { at, settings });
  }

  // the systems whose entry is missing or expired are loaded together (lib/coalesced-loads.ts): their
  // entries expire together (loaded in the same second, as a fleet's first reports after a start are),
  // and each would otherwise cost its own query in the same few milliseconds
  const load = coalescedLoads(async (systemIds: number[]) => {
    const started = generation;
    const at = clock.now().getTime();
    const layers = await repo.layersOfSystems(systemIds);
    const loaded = new Map(systemIds.map((id) => [id, effective(id, layers.get(id) ?? [])]));
    if (started === generation) for (const [id, settings] of loaded) remember(id, at, settings);
    return loaded;
  });

  return {
    /** Empties the effective-settings cache (tests; writes here do it themselves). */
    invalidate,

    async list(principal: Principal, scope: Scope): Promise<ScopeListing> {
      await visibleScope(principal, scope);
      const settings = (await repo.listByScope(scope)).map(view);
      if (scope.type === 'cluster') return { settings };
      const effective = [...layered(await repo.layersOfSystem(scope.id)).values()].map((row): EffectiveEntry => ({
        key: row.key,
        secret: row.secret,
        value: row.secret ? null : row.value,
        from: row.scope,
      }));
      return { settings, effective };
    },

    async create(actor: AuditActor, principal: Principal, input: NewAgentSetting): Promise<AgentSettingView> {
      const owner = await writableScope(principal, input.scope);
      const created = await repo.transaction(async (trx) => {
        const id = await repo.insert(input, (newId) => sealFor(newId, input.value, input.secret), trx);
        if (id === null) throw new Conflict(`The ${input.scope.type} already has a setting named ${input.key}`);
        const row = (await repo.find(id, trx)) as AgentSettingRow;
        await audit.record(trx, actor, {
          action: 'agent_setting.create',
          targetType: 'agent_setting',
          targetId: id,
          customerId: owner.customerId,
          after: settingFacts(row),
        });
        return row;
      });
      await written(created.id, owner.customerId);
      return view(created);
    },

    /**
     * Changes the value or the secret flag. A secret's value left out stays as it is; a secret
     * made plain needs a new value (the stored one is never revealed).
     */
    async update(
      actor: AuditActor,
      principal: Principal,
      id: number,
      changes: AgentSettingChanges,
    ): Promise<AgentSettingView> {
      const row = await writableSetting(principal, id);
      const secret = changes.secret ?? row.secret;
      let value: string;
      if (changes.value !== undefined) value = sealFor(id, changes.value, secret);
      else if (row.secret && !secret) {
        throw new Invalid('value: a new value is required to make a secret setting plain', { field: 'value' });
      } else if (!row.secret && secret) value = sealFor(id, row.value, true);
      else value = row.value;
      const updated = await repo.transaction(async (trx) => {
        await repo.update(id, { value, secret }, trx);
        const after = (await repo.find(id, trx)) as AgentSettingRow;
        await audit.record(trx, actor, {
          action: 'agent_setting.update',
          targetType: 'agent_setting',
          targetId: id,
          customerId: row.customerId,
          before: settingFacts(row),
          after: settingFacts(after),
        });
        return after;
      });
      await written(id, row.customerId);
      return view(updated);
    },

    async remove(actor: AuditActor, principal: Principal, id: number): Promise<void> {
      const row = await writableSetting(principal, id);
      await repo.transaction(async (trx) => {
        await repo.delete(id, trx);
        await audit.record(trx, actor, {
          action: 'agent_setting.delete',
          targetType: 'agent_setting',
          targetId: id,
          customerId: row.customerId,
          before: settingFacts(row),
        });
      });
      await written(id, row.customerId);
    },

    /**
     * What the agent of `systemId` gets in its ingest answer: the cluster's settings with the
     * system's own on top, secrets in clear (null when one does not open). Cached for
     * EFFECTIVE_CACHE_TTL_MS; a write through this service is seen at once.
     */
    async effectiveSettingsForAgent(systemId: number): Promise<Record<string, string | null>> {
      const now = clock.now().getTime();
      const hit = cache.get(systemId);
      if (hit && now - hit.at < EFFECTIVE_CACHE_TTL_MS && now >= hit.at) return hit.settings;
      return (await load(systemId)) ?? {};
    },
  };
}

export type AgentSettingsService = ReturnType<typeof createAgentSettingsService>;
