/**
 * Maintenance windows (docs/rules.md "Suppression: maintenance windows and inactive customers"): scoped to a customer,
 * cluster or system; the customer is derived from the scope and checked.
 * ADMIN or an OPERATOR granted the customer writes; a VIEWER reads; a window
 * of a customer the account may not see is a 404.
 */
import type { AuditActor, AuditTrail } from '../lib/audit-trail.js';
import type { Bus } from '../bus/bus.js';
import { publishChange } from '../bus/changes.js';
import { canSeeCustomer, canWriteCustomer, visibleTo, type Principal } from '../lib/access.js';
import { Forbidden, Invalid, NotFound } from '../lib/errors.js';
import type { Clock } from '../lib/clock.js';
import { parseInput } from '../lib/validate.js';
import type { ScopeRepo } from '../scopes/repo.js';
import type { MaintenanceRepo, WindowRow } from './repo.js';
import { windowCovers, type WindowSchedule } from './schedule.js';
import { windowSchema, type WindowInput } from '../../../contracts/maintenance.js';

/** Whether the window suppresses alerts right now (the same schedule the evaluation run uses). */
export function activeAt(row: WindowRow, at: Date): boolean {
  const schedule: WindowSchedule =
    row.kind === 'once'
      ? { kind: 'once', startsAt: row.startsAt as Date, endsAt: row.endsAt as Date }
      : {
          kind: 'weekly',
          weekdays: row.weekdays ?? [],
          startTime: row.startTime ?? '00:00',
          durationMinutes: row.durationMinutes ?? 0,
        };
  return windowCovers(schedule, at, row.timeZone);
}

function json(row: WindowRow, activeNow: boolean) {
  return {
    id: row.id,
    name: row.name,
    customerId: row.customerId,
    customerName: row.customerName,
    timeZone: row.timeZone,
    scope: row.scope,
    kind: row.kind,
    startsAt: row.startsAt?.toISOString() ?? null,
    endsAt: row.endsAt?.toISOString() ?? null,
    weekdays: row.weekdays,
    startTime: row.startTime,
    durationMinutes: row.durationMinutes,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    activeNow,
  };
}

/** A stored window in the request shape, so an edit is checked as a whole window. */
const asInput = (row: WindowRow) => ({
  name: row.name,
  scope: { type: row.scope.type, id: row.scope.id },
  kind: row.kind,
  startsAt: row.startsAt?.toISOString() ?? null,
  endsAt: row.endsAt?.toISOString() ?? null,
  weekdays: row.weekdays,
  startTime: row.startTime,
  durationMinutes: row.durationMinutes,
});

export function createMaintenanceService(deps: {
  repo: MaintenanceRepo;
  scopes: ScopeRepo;
  bus: Bus;
  clock: Clock;
  audit: AuditTrail;
}) {
  const { repo, scopes, bus, clock, audit } = deps;
  const view = (row: WindowRow) => json(row, activeAt(row, clock.now()));

  async function visibleWindow(principal: Principal, id: number): Promise<WindowRow> {
    const row = await repo.find(id);
    if (!row || !canSeeCustomer(principal, row.customerId)) throw new NotFound('No such maintenance window');
    return row;
  }

  async function writableWindow(principal: Principal, id: number): Promise<WindowRow> {
    const row = await visibleWindow(principal, id);
    if (!canWriteCustomer(principal, row.customerId)) throw new Forbidden('You may not change this customer');
    return row;
  }

  /** The customer behind the scope; a scope the account cannot see is reported like one that does not exist. */
  async function scopeCustomer(principal: Principal, input: WindowInput): Promise<number> {
    const target = await scopes.find(input.scope.type, input.scope.id);
    if (!target || !canSeeCustomer(principal, target.customerId)) {
      throw new Invalid(`scope.id: no such ${input.scope.type}`, { field: 'scope.id' });
    }
    if (!canWriteCustomer(principal, target.customerId)) throw new Forbidden('You may not change this customer');
    return target.customerId;
  }

  const fields = (input: WindowInput, customerId: number) => ({
    customerId,
    scopeType: input.scope.type,
    scopeId: input.scope.id,
    name: input.name,
    kind: input.kind,
    startsAt: input.startsAt,
    endsAt: input.endsAt,
    weekdays: input.weekdays,
    startTime: input.startTime,
    durationMinutes: input.durationMinutes,
  });

  const changed = (id: number, customerId: number) =>
    publishChange(bus, { topic: 'maintenance', ids: [id], reach: { customerId } });

  return {
    async list(principal: Principal, customerId?: number) {
      return (await repo.list(visibleTo(principal), customerId)).map(view);
    },
    async get(principal: Principal, id: number) {
      return view(await visibleWindow(principal, id));
    },
    async create(actor: AuditActor, principal: Principal, input: WindowInput) {
      const customerId = await scopeCustomer(principal, input);
      const created = await repo.transaction(async (trx) => {
        const id = await repo.insert(fields(input, customerId), principal.userId, clock.now(), trx);
        const row = (await repo.find(id, trx)) as WindowRow;
        await audit.record(trx, actor, {
          action: 'maintenance_window.create',
          targetType: 'maintenance_window',
          targetId: id,
          customerId,
          after: asInput(row),
        });
        return row;
      });
      await changed(created.id, customerId);
      return view(created);
    },
    async update(actor: AuditActor, principal: Principal, id: number, changes: Record<string, unknown>) {
      const current = await writableWindow(principal, id);
      const input = parseInput(windowSchema, { ...asInput(current), ...changes });
      const customerId = await scopeCustomer(principal, input);
      const updated = await repo.transaction(async (trx) => {
        await repo.update(id, fields(input, customerId), clock.now(), trx);
        const row = (await repo.find(id, trx)) as WindowRow;
        await audit.record(trx, actor, {
          action: 'maintenance_window.update',
          targetType: 'maintenance_window',
          targetId: id,
          customerId,
          before: { ...asInput(current), customerId: current.customerId },
          after: { ...asInput(row), customerId },
        });
        return row;
      });
      await changed(id, customerId);
      if (customerId !== current.customerId) await changed(id, current.customerId);
      return view(updated);
    },
    async remove(actor: AuditActor, principal: Principal, id: number) {
      const current = await writableWindow(principal, id);
      await repo.transaction(async (trx) => {
        await repo.delete(id, clock.now(), trx);
        await audit.record(trx, actor, {
          action: 'maintenance_window.delete',
          targetType: 'maintenance_window',
          targetId: id,
          customerId: current.customerId,
          before: asInput(current),
        });
      });
      await changed(id, current.customerId);
    },
  };
}

export type MaintenanceService = ReturnType<typeof createMaintenanceService>;
