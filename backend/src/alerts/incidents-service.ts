/**
 * Cluster incidents ("Site down: <cluster>") with their member alerts, as accounts see them: every
 * account that may see the customer (the evaluation run opens and resolves them).
 */
import type { Incident } from '../../../contracts/alerts.js';
import { canSeeCustomer, visibleTo, type Principal } from '../lib/access.js';
import { NotFound } from '../lib/errors.js';
import type { IncidentRow, IncidentsRepo } from './incidents-read-repo.js';

const incidentView = (row: IncidentRow): Incident => ({
  ...row,
  startedAt: row.startedAt.toISOString(),
  resolvedAt: row.resolvedAt?.toISOString() ?? null,
});

export function createIncidentsService({ repo }: { repo: IncidentsRepo }) {
  return {
    /** Newest first. */
    async list(
      principal: Principal,
      q: { state?: 'open' | 'resolved' | undefined; customerId?: number | undefined; limit: number },
    ): Promise<Incident[]> {
      return (await repo.list({ ...q, visible: visibleTo(principal) })).map(incidentView);
    },
    async get(principal: Principal, id: number): Promise<Incident> {
      const row = await repo.find(id);
      if (!row || !canSeeCustomer(principal, row.customerId)) throw new NotFound('No such incident');
      return incidentView(row);
    },
  };
}

export type IncidentsService = ReturnType<typeof createIncidentsService>;
