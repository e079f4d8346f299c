/**
 * Enrolment at MSP scale: what each cluster enrolled and refused in the last hour,
 * and an ADMIN's raise of one cluster's hourly limit for the next hour. The raise ends by itself: the
 * ingest reads only a raise whose hour has not run out (ingest/repo.ts registerSystem).
 */
import type { ClusterEnrollment } from '../../../contracts/fleet.js';
import type { Bus } from '../bus/bus.js';
import { publishChange } from '../bus/changes.js';
import type { AuditActor, AuditTrail } from '../lib/audit-trail.js';
import { canSeeCustomer, visibleTo, type Principal } from '../lib/access.js';
import type { Clock } from '../lib/clock.js';
import { Invalid, NotFound } from '../lib/errors.js';
import type { ClusterEnrollmentRow, EnrollmentRaiseRow, EnrollmentRepo } from './enrollment-repo.js';
import type { CustomersRepo } from './repo.js';

const raiseFacts = (raise: EnrollmentRaiseRow | null) =>
  raise ? { hourlyLimit: raise.hourlyLimit, expiresAt: raise.expiresAt.toISOString() } : null;

export function createEnrollmentService(deps: {
  repo: EnrollmentRepo;
  clusters: Pick<CustomersRepo, 'findCluster'>;
  bus: Bus;
  clock: Clock;
  audit: AuditTrail;
  /** AGENT_ENROLL_PER_CLUSTER_PER_HOUR. */
  defaultLimit: number;
}) {
  const { repo, clock, audit, defaultLimit } = deps;

  function view(row: ClusterEnrollmentRow): ClusterEnrollment {
    const raised = row.raise && row.raise.hourlyLimit > defaultLimit ? row.raise : null;
    return {
      clusterId: row.clusterId,
      customerId: row.customerId,
      hourlyLimit: raised ? raised.hourlyLimit : defaultLimit,
      defaultLimit,
      raise: raised
        ? { hourlyLimit: raised.hourlyLimit, until: raised.expiresAt.toISOString(), by: raised.raisedBy }
        : null,
      enrolledLastHour: row.enrolledLastHour,
      refusedLastHour: {
        hosts: row.refusedHosts,
        attempts: row.refusedAttempts,
        hourlyLimit: row.refusedForLimit,
        otherCustomer: row.refusedOtherCustomer,
        lastAt: row.lastRefusedAt?.toISOString() ?? null,
      },
    };
  }

  async function statusOf(principal: Principal, clusterId: number): Promise<ClusterEnrollment> {
    const rows = await repo.listClusterEnrollment(visibleTo(principal), clock.now());
    const row = rows.find((candidate) => candidate.clusterId === clusterId);
    if (!row) throw new NotFound('No such cluster');
    return view(row);
  }

  return {
    async list(principal: Principal): Promise<ClusterEnrollment[]> {
      return (await repo.listClusterEnrollment(visibleTo(principal), clock.now())).map(view);
    },

    /** ADMIN only (the route checks the role): `limit` new systems an hour, for the next hour. */
    async raise(actor: AuditActor, principal: Principal, clusterId: number, limit: number): Promise<ClusterEnrollment> {
      const cluster = await deps.clusters.findCluster(clusterId);
      if (!cluster || !canSeeCustomer(principal, cluster.customerId)) throw new NotFound('No such cluster');
      if (limit <= defaultLimit) {
        throw new Invalid(
          `limit: must be above the limit of AGENT_ENROLL_PER_CLUSTER_PER_HOUR (${defaultLimit}) to raise it`,
          { field: 'limit' },
        );
      }
      const now = clock.now();
      await repo.transaction(async (trx) => {
        const before = await repo.findRaise(clusterId, now, trx);
        await repo.putRaise(clusterId, { hourlyLimit: limit, now, raisedBy: actor.name }, trx);
        await audit.record(trx, actor, {
          action: 'cluster.enrollment_limit.raise',
          targetType: 'cluster',
          targetId: clusterId,
          customerId: cluster.customerId,
          before: { raise: raiseFacts(before) },
          after: { raise: raiseFacts(await repo.findRaise(clusterId, now, trx)) },
        });
      });
      await publishChange(deps.bus, {
        topic: 'customers',
        ids: [cluster.customerId],
        reach: { customerId: cluster.customerId },
      });
      return statusOf(principal, clusterId);
    },
  };
}

export type EnrollmentService = ReturnType<typeof createEnrollmentService>;
