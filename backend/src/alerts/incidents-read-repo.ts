/** SQL of cluster incidents as the console reads them (migration 0011). */
import type { Knex } from 'knex';
import type { Visible } from '../lib/access.js';

export interface IncidentRow {
  id: number;
  title: string;
  customerId: number;
  customerName: string;
  clusterId: number;
  clusterName: string;
  state: 'open' | 'resolved';
  startedAt: Date;
  resolvedAt: Date | null;
  alerts: { id: number; systemId: number; systemName: string; state: 'open' | 'resolved' }[];
}

export function createIncidentsRepo(db: Knex) {
  async function select(where: (q: Knex.QueryBuilder) => void, limit: number): Promise<IncidentRow[]> {
    const query = db('incidents as i')
      .join('customers as c', 'c.id', 'i.customer_id')
      .join('clusters as cl', 'cl.id', 'i.cluster_id')
      .select(
        'i.id',
        'i.title',
        'i.customer_id as customerId',
        'c.name as customerName',
        'i.cluster_id as clusterId',
        'cl.name as clusterName',
        'i.state',
        'i.started_at as startedAt',
        'i.resolved_at as resolvedAt',
        db.raw(
          `coalesce((SELECT json_agg(json_build_object('id', a.id, 'systemId', a.system_id, 'systemName', s.name,
                                                       'state', a.state) ORDER BY s.name)
                       FROM alerts a JOIN systems s ON s.id = a.system_id WHERE a.incident_id = i.id), '[]') AS alerts`,
        ),
      )
      .orderBy('i.id', 'desc')
      .limit(limit);
    where(query);
    const rows = await query;
    return rows.map((r: IncidentRow & { id: string; alerts: (IncidentRow['alerts'][number] & { id: string })[] }) => ({
      ...r,
      id: Number(r.id),
      alerts: r.alerts.map((a) => ({ ...a, id: Number(a.id) })),
    }));
  }

  return {
    /** Newest first. */
    list(q: {
      visible: Visible;
      state?: 'open' | 'resolved' | undefined;
      customerId?: number | undefined;
      limit: number;
    }) {
      return select((query) => {
        if (q.visible) query.whereIn('i.customer_id', [...q.visible]);
        if (q.state) query.where('i.state', q.state);
        if (q.customerId !== undefined) query.where('i.customer_id', q.customerId);
      }, q.limit);
    },
    async find(id: number): Promise<IncidentRow | undefined> {
      return (await select((query) => query.where('i.id', id), 1))[0];
    },
  };
}

export type IncidentsRepo = ReturnType<typeof createIncidentsRepo>;
