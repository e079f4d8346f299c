/** SQL of alert rules and event rules, each row with its scope's customer and name. */
import type { Knex } from 'knex';
import type { Operator } from '../../../contracts/rules.js';
import type { Severity } from '../alerts/alert-json.js';
import { joinScopeTables, scopeColumns, type ScopeType } from '../scopes/repo.js';
import { transactionOf } from '../lib/transaction.js';

export interface RuleScope {
  type: ScopeType;
  id: number;
  /** null when the scope's customer, cluster or system was deleted (only an ADMIN sees such a rule). */
  customerId: number | null;
  name: string | null;
}

interface RuleBase {
  id: number;
  key: string;
  name: string;
  severity: Severity;
  enabled: boolean;
  scope: RuleScope | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface AlertRuleRow extends RuleBase {
  kind: 'metric' | 'offline' | 'forecast';
  metric: string | null;
  instanceGlob: string | null;
  operator: Operator | null;
  threshold: number | null;
  absolute: boolean;
  forSeconds: number;
  horizonSeconds: number | null;
  countsAsDowntime: boolean;
}

export interface EventRuleRow extends RuleBase {
  eventType: string | null;
  messagePattern: string | null;
  minEventSeverity: Severity | null;
  derived: 'reboot' | null;
  holdSeconds: number;
}

function base(row: Record<string, unknown>): RuleBase {
  const scopeType = row['scope_type'] as ScopeType | null;
  return {
    id: row['id'] as number,
    key: row['key'] as string,
    name: row['name'] as string,
    severity: row['severity'] as Severity,
    enabled: row['enabled'] as boolean,
    scope: scopeType
      ? {
          type: scopeType,
          id: row['scope_id'] as number,
          customerId: (row['scope_customer_id'] as number | null) ?? null,
          name: (row['scope_name'] as string | null) ?? null,
        }
      : null,
    createdAt: row['created_at'] as Date,
    updatedAt: row['updated_at'] as Date,
  };
}

const mapAlertRule = (row: Record<string, unknown>): AlertRuleRow => ({
  ...base(row),
  kind: row['kind'] as AlertRuleRow['kind'],
  metric: (row['metric'] as string | null) ?? null,
  instanceGlob: (row['instance_glob'] as string | null) ?? null,
  operator: (row['operator'] as Operator | null) ?? null,
  threshold: (row['threshold'] as number | null) ?? null,
  absolute: row['absolute'] as boolean,
  forSeconds: row['for_seconds'] as number,
  horizonSeconds: (row['horizon_seconds'] as number | null) ?? null,
  countsAsDowntime: row['counts_as_downtime'] as boolean,
});

const mapEventRule = (row: Record<string, unknown>): EventRuleRow => ({
  ...base(row),
  eventType: (row['event_type'] as string | null) ?? null,
  messagePattern: (row['message_pattern'] as string | null) ?? null,
  minEventSeverity: (row['min_event_severity'] as Severity | null) ?? null,
  derived: (row['derived'] as 'reboot' | null) ?? null,
  holdSeconds: row['hold_seconds'] as number,
});

/** camelCase field → column, for inserts and updates. */
const ALERT_COLUMNS: Record<string, string> = {
  key: 'key',
  name: 'name',
  kind: 'kind',
  severity: 'severity',
  metric: 'metric',
  instanceGlob: 'instance_glob',
  operator: 'operator',
  threshold: 'threshold',
  absolute: 'absolute',
  forSeconds: 'for_seconds',
  horizonSeconds: 'horizon_seconds',
  enabled: 'enabled',
  countsAsDowntime: 'counts_as_downtime',
};
const EVENT_COLUMNS: Record<string, string> = {
  key: 'key',
  name: 'name',
  severity: 'severity',
  eventType: 'event_type',
  messagePattern: 'message_pattern',
  minEventSeverity: 'min_event_severity',
  derived: 'derived',
  holdSeconds: 'hold_seconds',
  enabled: 'enabled',
};

function columnsOf(fields: Record<string, unknown>, names: Record<string, string>): Record<string, unknown> {
  const columns: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(names)) {
    if (fields[field] !== undefined) columns[column] = fields[field];
  }
  return columns;
}

export interface NewScope {
  type: ScopeType;
  id: number;
}

function createTableRepo<Row>(
  db: Knex,
  table: string,
  names: Record<string, string>,
  map: (r: Record<string, unknown>) => Row,
) {
  const select = (q: Knex = db) =>
    joinScopeTables(q(`${table} as r`).select('r.*', ...scopeColumns(q, 'r')), 'r').orderByRaw(
      // global rules first, then overrides by key: the console lists an override under its rule
      'r.key, r.scope_type NULLS FIRST, r.scope_id',
    );
  return {
    async list(): Promise<Row[]> {
      return (await select()).map(map);
    },
    async find(id: number, q: Knex = db): Promise<Row | null> {
      const row = await select(q).where('r.id', id).first();
      return row ? map(row) : null;
    },
    async listByKey(key: string): Promise<Row[]> {
      return (await select().where('r.key', key)).map(map);
    },
    async exists(key: string, scope: NewScope | null): Promise<boolean> {
      const query = db(table).where({ key });
      if (scope) query.where({ scope_type: scope.type, scope_id: scope.id });
      else query.whereNull('scope_type');
      return (await query.first('id')) !== undefined;
    },
    /** Null when the key is taken at that scope (the unique index decides, also between racing requests). */
    async insert(fields: Record<string, unknown>, scope: NewScope | null, q: Knex = db): Promise<number | null> {
      const [row] = await q(table)
        .insert({ ...columnsOf(fields, names), scope_type: scope?.type ?? null, scope_id: scope?.id ?? null })
        .onConflict()
        .ignore()
        .returning<{ id: number }[]>('id');
      return row?.id ?? null;
    },
    async update(id: number, fields: Record<string, unknown>, q: Knex = db): Promise<void> {
      await q(table)
        .where({ id })
        .update({ ...columnsOf(fields, names), updated_at: q.fn.now() });
    },
    async delete(id: number, q: Knex = db): Promise<void> {
      await q(table).where({ id }).delete();
    },
  };
}

export function createRulesRepo(db: Knex) {
  return {
    transaction: transactionOf(db),
    alertRules: createTableRepo(db, 'alert_rules', ALERT_COLUMNS, mapAlertRule),
    eventRules: createTableRepo(db, 'event_rules', EVENT_COLUMNS, mapEventRule),
  };
}

export type RulesRepo = ReturnType<typeof createRulesRepo>;
export type RuleTableRepo<Row> = ReturnType<typeof createTableRepo<Row>>;
