/**
 * GET /api/clusters/enrollment (the last hour's enrolments and refusals of every visible cluster) and
 * POST /api/clusters/:id/enrollment-limit (ADMIN: raise a cluster's hourly limit for the next hour).
 */
import Router from '@koa/router';
import { z } from 'zod';
import { clusterEnrollment, raiseEnrollmentLimitBody } from '../../../contracts/fleet.js';
import { auditActor } from '../http/audit-actor.js';
import type { RouteDoc } from '../http/openapi.js';
import { currentPrincipal, requireRole } from '../http/route-guards.js';
import { idOf } from '../lib/ids.js';
import { parseInput } from '../lib/validate.js';
import type { EnrollmentService } from './enrollment-service.js';

export function enrollmentRoutes(enrollment: EnrollmentService): Router {
  const router = new Router();
  router.get('/api/clusters/enrollment', async (ctx) => {
    ctx.body = await enrollment.list(currentPrincipal(ctx.state));
  });
  router.post('/api/clusters/:id/enrollment-limit', requireRole('ADMIN'), async (ctx) => {
    const input = parseInput(raiseEnrollmentLimitBody, ctx.request.body);
    ctx.body = await enrollment.raise(
      auditActor(ctx),
      currentPrincipal(ctx.state),
      idOf(ctx.params['id'], 'cluster'),
      input.limit,
    );
  });
  return router;
}

export const enrollmentApi: RouteDoc[] = [
  {
    method: 'get',
    path: '/api/clusters/enrollment',
    tag: 'Fleet',
    access: 'signed-in',
    summary: "The visible clusters' enrolments in the last hour",
    description:
      'Per cluster: the hourly enrolment limit that applies now (AGENT_ENROLL_PER_CLUSTER_PER_HOUR, or an ' +
      "administrator's running raise), the new systems of the last hour, and the hosts refused in it, by reason.",
    responses: { 200: { description: 'One entry per visible cluster', schema: z.array(clusterEnrollment) } },
  },
  {
    method: 'post',
    path: '/api/clusters/:id/enrollment-limit',
    tag: 'Fleet',
    access: 'admin',
    summary: "Raise a cluster's enrolment limit for the next hour",
    description:
      'The cluster enrols up to `limit` new systems an hour until an hour from now; then ' +
      'AGENT_ENROLL_PER_CLUSTER_PER_HOUR applies again by itself. A second raise replaces the first. ' +
      "`limit` must be above the variable's value.",
    body: raiseEnrollmentLimitBody,
    responses: { 200: { description: "The cluster's enrolments with the raise", schema: clusterEnrollment } },
  },
];
