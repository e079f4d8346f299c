/**
 * SQL of the quick search: names (of systems, checks, customers, alerts) that contain the words typed,
 * within what the caller may see, and the fleet's container names and images the search's container
 * index is built from.
 */
import type { Knex } from 'knex';
import type { Visible } from '../lib/access.js';
import { escapeLike } from '../lib/like.js';

export interface ContainerName {
  name: string;
  /** The image its agent last listed it with, if it sent one. */
  image: string | null;
  systemId: number;
  systemName: string;
  customerId: number;
  running: boolean;
  /** When the system last reported it. */
  seenAt: Date;
}

export interface SearchHit {
  systems: { id: number; name: string; hostname: string; status: string; customerName: string }[];
  checks: { id: number; name: string; type: string; state: string; customerName: string }[];
  customers: { id: number; name: string; active: boolean }[];
  alerts: {
    id: number;
    ruleKey: string;
    severity: string;
    state: string;
    message: string;
    systemName: string;
    timeZone: string;
  }[];
}

export function createSearchRepo(db: Knex) {
  return {
    /**
     * Every container of the fleet, named by the instance of its `container.running` series in its
     * system's newest values, seen within `since` (a series older is a container removed since: the
     * newest values keep it), with the image its agent last listed it with. Read for the search's
     * container index, not at every keystroke.
     */
    async containerNames(since: Date): Promise<ContainerName[]> {
      const rows = await db('system_latest as l')
        .join('systems as s', 's.id', 'l.system_id')
        .joinRaw('CROSS JOIN LATERAL unnest(l.names, l.instances, l.times, l.vals) AS u(name, instance, time, value)')
        .whereRaw(`l.names @> ARRAY['container.running']`)
        .where('u.name', 'container.running')
        .where('u.time', '>', since)
        .leftJoin('container_images as ci', (on) => on.on('ci.system_id', 's.id').andOn('ci.name', 'u.instance'))
        .select(
          'u.instance as name',
          'ci.image as image',
          's.id as systemId',
          's.name as systemName',
          's.customer_id as customerId',
          db.raw('u.value >= 0.5 AS running'),
          'u.time as seenAt',
        );
      return rows as ContainerName[];
    },

    /**
     * Up to `limit` of each kind, the best first: a name that starts with the term before one that
     * merely contains it, then the shorter name. Alerts: the open ones (by system, rule or message),
     * and the alert whose number was typed ("#123" or "123"), open or not.
     */
    async search(term: string, visible: Visible, limit: number, q: Knex = db): Promise<SearchHit> {
      const pattern = `%${escapeLike(term)}%`;
      const prefix = `${escapeLike(term)}%`;
      const scoped = <T extends Knex.QueryBuilder>(query: T, column: string): T =>
        (visible ? query.whereIn(column, [...visible]) : query) as T;

      const systems = scoped(
        q('systems as s')
          .join('customers as c', 'c.id', 's.customer_id')
          .where('s.kind', 'agent') // a network check is found as a check, below
          .where((w) => w.whereILike('s.name', pattern).orWhereILike('s.hostname', pattern))
          .select('s.id', 's.name', 's.hostname', 's.status', 'c.name as customerName')
          .orderByRaw('(s.name ILIKE ? OR s.hostname ILIKE ?) DESC, length(s.name), lower(s.name)', [prefix, prefix])
          .limit(limit),
        's.customer_id',
      );
      const checks = scoped(
        q('checks as k')
          .join('systems as s', 's.id', 'k.id')
          .join('customers as c', 'c.id', 's.customer_id')
          .whereILike('s.name', pattern)
          .select('k.id', 's.name', 'k.type', 'k.state', 'c.name as customerName')
          .orderByRaw('s.name ILIKE ? DESC, length(s.name), lower(s.name)', [prefix])
          .limit(limit),
        's.customer_id',
      );
      const customers = scoped(
        q('customers')
          .whereILike('name', pattern)
          .select('id', 'name', 'active')
          .orderByRaw('name ILIKE ? DESC, length(name), lower(name)', [prefix])
          .limit(limit),
        'id',
      );
      const number = /^#?(\d{1,15})$/.exec(term)?.[1];
      const alerts = scoped(
        q('alerts as a')
          .join('systems as s', 's.id', 'a.system_id')
          .join('customers as c', 'c.id', 'a.customer_id')
          .where((w) => {
            w.where('a.state', 'open').andWhere((m) =>
              m
                .whereILike('s.name', pattern)
                .orWhereILike('s.hostname', pattern)
                .orWhereILike('a.rule_key', pattern)
                .orWhereILike('a.message', pattern),
            );
            if (number) w.orWhere('a.id', Number(number));
          })
          .select(
            'a.id',
            'a.rule_key as ruleKey',
            'a.severity',
            'a.state',
            'a.message',
            's.name as systemName',
            'c.time_zone as timeZone',
          )
          .orderByRaw(`a.id = ? DESC, a.state = 'open' DESC, a.started_at DESC`, [number ? Number(number) : 0])
          .limit(limit),
        'a.customer_id',
      );
      const [systemRows, checkRows, customerRows, alertRows] = await Promise.all([systems, checks, customers, alerts]);
      return {
        systems: systemRows,
        checks: checkRows,
        customers: customerRows,
        alerts: alertRows.map((row: SearchHit['alerts'][number]) => ({ ...row, id: Number(row.id) })),
      };
    },
  };
}

export type SearchRepo = ReturnType<typeof createSearchRepo>;
