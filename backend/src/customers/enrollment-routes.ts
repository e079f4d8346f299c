/**
 * GET /api/clusters/enrollment (the last hour's enrolments and refusals of every visible cluster) and
 * POST /api/clusters/:id/enrollment-limit (ADMIN: raise a cluster's hourly limit for the next hour).
 */
import { z } from 'zod';
import { clusterEnrollment, raiseEnrollmentLimitBody } from '../../../contracts/fleet.js';
import { idParam, routeOf } from '../http/route.js';
import type { EnrollmentService } from './enrollment-service.js';

const route = routeOf<EnrollmentService>();

export const enrollmentRoutes = [
  route({
    method: 'get',
    path: '/api/clusters/enrollment',
    tag: 'Fleet',
    access: 'signed-in',
    summary: "The visible clusters' enrolments in the last hour",
    description:
      'Per cluster: the hourly enrolment limit that applies now (AGENT_ENROLL_PER_CLUSTER_PER_HOUR, or an ' +
      "administrator's running raise), the new systems of the last hour, and the hosts refused in it, by reason.",
    responses: { 200: { description: 'One entry per visible cluster', schema: z.array(clusterEnrollment) } },
    handler: (enrollment, { principal }) => enrollment.list(principal),
  }),
  route({
    method: 'post',
    path: '/api/clusters/:id/enrollment-limit',
    tag: 'Fleet',
    access: 'admin',
    summary: "Raise a cluster's enrolment limit for the next hour",
    description:
      'The cluster enrols up to `limit` new systems an hour until an hour from now; then ' +
      'AGENT_ENROLL_PER_CLUSTER_PER_HOUR applies again by itself. A second raise replaces the first. ' +
      "`limit` must be above the variable's value.",
    params: { id: idParam('cluster') },
    body: raiseEnrollmentLimitBody,
    responses: { 200: { description: "The cluster's enrolments with the raise", schema: clusterEnrollment } },
    handler: (enrollment, { actor, principal, params, body }) =>
      enrollment.raise(actor, principal, params.id, body.limit),
  }),
];
