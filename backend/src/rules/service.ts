/**
 * Alert rules and event rules (docs/rules.md "Metric rules"). A rule without a
 * scope is global and written by ADMIN only; a scoped override (same key, at a
 * customer, cluster or system) is written by ADMIN or an OPERATOR granted the
 * scope's customer. Everyone reads the global rules and the overrides of the
 * customers they see; any other override is a 404.
 */
import type { Bus } from '../bus/bus.js';
import { publishChange, type Reach } from '../bus/changes.js';
import { canSeeCustomer, canWriteCustomer, type Principal } from '../lib/access.js';
import type { AuditActor, AuditTrail } from '../lib/audit-trail.js';
import { Conflict, Forbidden, Invalid, NotFound } from '../lib/errors.js';
import type { AlertRuleRow, EventRuleRow, NewScope, RuleScope, RuleTableRepo, RulesRepo } from './repo.js';
import type { AlertRuleChanges, AlertRuleInput, EventRuleChanges, EventRuleInput } from '../../../contracts/rules.js';
import type { ScopeRepo } from '../scopes/repo.js';

export const OFFLINE_RULE_KEY = 'system.offline';

interface RuleLike {
  id: number;
  scope: RuleScope | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Who hears of a rule's change: as ruleVisible decides who sees it. */
function reachOfRule(scope: RuleScope | null): Reach {
  if (!scope) return { everyone: true };
  return scope.customerId === null ? { admins: true } : { customerId: scope.customerId };
}

export function ruleVisible(principal: Principal, scope: RuleScope | null): boolean {
  if (!scope) return true;
  // an override whose scope was deleted belongs to nobody: only an ADMIN sees (and removes) it
  if (scope.customerId === null) return principal.role === 'ADMIN';
  return canSeeCustomer(principal, scope.customerId);
}

function json<R extends RuleLike>(row: R) {
  return { ...row, createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString() };
}

type AlertRuleKind = 'metric' | 'offline' | 'forecast';

/** The fields a rule of `kind` must not have, with the reason a refusal names. */
function refuseFields(rule: Partial<AlertRuleInput>, fields: readonly (keyof AlertRuleInput)[], why: string): void {
  for (const field of fields) {
    if (rule[field] !== null && rule[field] !== undefined) throw new Invalid(`${field}: ${why}`, { field });
  }
}

/**
 * Checks a rule's fields for its kind: the offline rule (by its key), a rule on the newest value
 * (metric), or a forecast ("reaches the threshold within the horizon", rising with >= or falling
 * with <=). Returns the kind.
 */
function checkAlertRuleShape(key: string, rule: Partial<AlertRuleInput>, kind: 'metric' | 'forecast' = 'metric') {
  if (key === OFFLINE_RULE_KEY) {
    // offline is "not seen for 2 minutes": it reads no metric and has no threshold or wait of its own
    refuseFields(
      rule,
      ['metric', 'operator', 'threshold', 'instanceGlob', 'horizonSeconds'],
      'the offline rule has none',
    );
    if (rule.countsAsDowntime === false) {
      throw new Invalid('countsAsDowntime: a system offline is always down', { field: 'countsAsDowntime' });
    }
    return 'offline' satisfies AlertRuleKind;
  }
  const required =
    kind === 'forecast'
      ? (['metric', 'threshold', 'horizonSeconds'] as const)
      : (['metric', 'operator', 'threshold'] as const);
  for (const field of required) {
    if (rule[field] === null || rule[field] === undefined) throw new Invalid(`${field}: is required`, { field });
  }
  if (kind === 'metric') {
    refuseFields(rule, ['horizonSeconds'], 'only a forecast rule has a horizon');
    return kind;
  }
  if (rule.operator && rule.operator !== '>=' && rule.operator !== '<=') {
    throw new Invalid('operator: a forecast rises to (>=) or falls to (<=) its threshold', { field: 'operator' });
  }
  if (rule.absolute) throw new Invalid('absolute: a forecast follows the value itself', { field: 'absolute' });
  return kind;
}

function checkEventRuleShape(rule: Partial<EventRuleInput>): void {
  if (!rule.eventType && !rule.derived) {
    throw new Invalid('eventType: an event type or a derived event is required', { field: 'eventType' });
  }
}

/** What the audit log keeps of a rule: its fields, without the bookkeeping times. */
function ruleFacts<R extends RuleLike>(row: R): Record<string, unknown> {
  const { id: _id, createdAt: _created, updatedAt: _updated, ...facts } = row;
  return facts;
}

export function createRulesService({
  repo,
  scopes,
  bus,
  audit,
}: {
  repo: RulesRepo;
  scopes: ScopeRepo;
  bus: Bus;
  audit: AuditTrail;
}) {
  /** Where a new rule goes: null (global, ADMIN only) or a scope the account may write. */
  async function writableScope(principal: Principal, scope: NewScope | null): Promise<NewScope | null> {
    if (!scope) {
      if (principal.role !== 'ADMIN') throw new Forbidden('Only an administrator changes global rules');
      return null;
    }
    const target = await scopes.find(scope.type, scope.id);
    if (!target || !canSeeCustomer(principal, target.customerId)) {
      throw new Invalid(`scope.id: no such ${scope.type}`, { field: 'scope.id' });
    }
    if (!canWriteCustomer(principal, target.customerId)) throw new Forbidden('You may not change this customer');
    return scope;
  }

  function checkWritable(principal: Principal, scope: RuleScope | null): void {
    if (!scope || scope.customerId === null) {
      if (principal.role !== 'ADMIN') throw new Forbidden('Only an administrator changes global rules');
      return;
    }
    if (!canWriteCustomer(principal, scope.customerId)) throw new Forbidden('You may not change this customer');
  }

  function crud<Row extends RuleLike & { key: string }>(table: RuleTableRepo<Row>, kind: 'alert_rule' | 'event_rule') {
    async function visible(principal: Principal, id: number): Promise<Row> {
      const row = await table.find(id);
      if (!row || !ruleVisible(principal, row.scope)) throw new NotFound('No such rule');
      return row;
    }
    const changed = (row: Row) => publishChange(bus, { topic: 'rules', ids: [row.id], reach: reachOfRule(row.scope) });
    return {
      visible,
      async list(principal: Principal) {
        return (await table.list()).filter((row) => ruleVisible(principal, row.scope)).map(json);
      },
      async get(principal: Principal, id: number) {
        return json(await visible(principal, id));
      },
      async create(
        actor: AuditActor,
        principal: Principal,
        key: string,
        fields: Record<string, unknown>,
        scope: NewScope | null,
      ) {
        const where = await writableScope(principal, scope);
        if (await table.exists(key, where)) throw new Conflict('A rule with this key exists at this scope');
        const created = await repo.transaction(async (trx) => {
          const id = await table.insert({ ...fields, key }, where, trx);
          if (id === null) throw new Conflict('A rule with this key exists at this scope');
          const row = (await table.find(id, trx)) as Row;
          await audit.record(trx, actor, {
            action: `${kind}.create`,
            targetType: kind,
            targetId: id,
            customerId: row.scope?.customerId ?? null,
            after: ruleFacts(row),
          });
          return row;
        });
        await changed(created);
        return json(created);
      },
      async update(actor: AuditActor, principal: Principal, current: Row, fields: Record<string, unknown>) {
        checkWritable(principal, current.scope);
        const updated = await repo.transaction(async (trx) => {
          await table.update(current.id, fields, trx);
          const row = (await table.find(current.id, trx)) as Row;
          await audit.record(trx, actor, {
            action: `${kind}.update`,
            targetType: kind,
            targetId: current.id,
            customerId: row.scope?.customerId ?? null,
            before: ruleFacts(current),
            after: ruleFacts(row),
          });
          return row;
        });
        await changed(updated);
        return json(updated);
      },
      async remove(actor: AuditActor, principal: Principal, id: number) {
        const row = await visible(principal, id);
        checkWritable(principal, row.scope);
        await repo.transaction(async (trx) => {
          await table.delete(id, trx);
          await audit.record(trx, actor, {
            action: `${kind}.delete`,
            targetType: kind,
            targetId: id,
            customerId: row.scope?.customerId ?? null,
            before: ruleFacts(row),
          });
        });
        await changed(row);
      },
    };
  }

  const alert = crud<AlertRuleRow>(repo.alertRules, 'alert_rule');

  async function inheritedCountsAsDowntime(key: string): Promise<boolean> {
    if (key === OFFLINE_RULE_KEY) return true;
    const global = (await repo.alertRules.listByKey(key)).find((rule) => rule.scope === null);
    return global?.countsAsDowntime ?? false;
  }
  const event = crud<EventRuleRow>(repo.eventRules, 'event_rule');

  return {
    alertRules: {
      list: alert.list,
      get: alert.get,
      remove: alert.remove,
      /** The rule as the account may see it (for the preview). */
      find: alert.visible,
      /** Checks an unsaved rule as a save would and names its kind (the preview of the editor). */
      shapeOf: (input: AlertRuleInput) => checkAlertRuleShape(input.key, input, input.kind),
      async create(actor: AuditActor, principal: Principal, input: AlertRuleInput) {
        const { key, scope, countsAsDowntime, kind: asked, ...fields } = input;
        const kind = checkAlertRuleShape(key, input, asked);
        // a forecast without an operator rises to its threshold
        if (kind === 'forecast') fields.operator ??= '>=';
        // an override counts as downtime as the rule it overrides, unless it says otherwise
        const counts = countsAsDowntime ?? (await inheritedCountsAsDowntime(key));
        return alert.create(actor, principal, key, { ...fields, kind, countsAsDowntime: counts }, scope);
      },
      async update(actor: AuditActor, principal: Principal, id: number, changes: AlertRuleChanges) {
        const current = await alert.visible(principal, id);
        const { key: _key, kind: _kind, scope: _scope, ...fields } = changes;
        if (current.kind === 'offline') checkAlertRuleShape(OFFLINE_RULE_KEY, fields);
        else checkAlertRuleShape(current.key, { ...current, ...fields, kind: current.kind }, current.kind);
        return alert.update(actor, principal, current, fields);
      },
    },
    eventRules: {
      list: event.list,
      get: event.get,
      remove: event.remove,
      async create(actor: AuditActor, principal: Principal, input: EventRuleInput) {
        const { key, scope, ...fields } = input;
        checkEventRuleShape(fields);
        return event.create(actor, principal, key, fields, scope);
      },
      async update(actor: AuditActor, principal: Principal, id: number, changes: EventRuleChanges) {
        const current = await event.visible(principal, id);
        const { key: _key, scope: _scope, ...fields } = changes;
        checkEventRuleShape({ ...current, ...fields });
        return event.update(actor, principal, current, fields);
      },
    },
  };
}

export type RulesService = ReturnType<typeof createRulesService>;
