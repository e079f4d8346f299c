/** Customers and clusters: /api/customers, /api/clusters (docs/api.md "Fleet"). */
import { z } from 'zod';
import { id, instant, SAFE_NAME, SAFE_NAME_MESSAGE } from './common.js';

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

const name = z.string().trim().min(1, 'is required').max(200).regex(SAFE_NAME, SAFE_NAME_MESSAGE);
const customerFields = {
  name,
  notes: z.string().max(10_000),
  active: z.boolean(),
  /** IANA name; maintenance windows and reports are read in it. */
  timeZone: z.string().refine(isTimeZone, 'must be an IANA time zone such as Europe/Berlin'),
};

export const createCustomerBody = z
  .object({
    ...customerFields,
    notes: customerFields.notes.default(''),
    active: customerFields.active.default(true),
    timeZone: customerFields.timeZone.default('UTC'),
  })
  .meta({ id: 'CreateCustomer', example: { name: 'Acme GmbH', timeZone: 'Europe/Berlin' } });
export const updateCustomerBody = z.object(customerFields).partial().strict().meta({ id: 'UpdateCustomer' });
export type CustomerFields = z.input<typeof updateCustomerBody>;

export const customer = z
  .object({
    id,
    name: z.string(),
    active: z.boolean(),
    notes: z.string(),
    timeZone: z.string(),
    createdAt: instant,
  })
  .meta({ id: 'Customer' });
export type Customer = z.infer<typeof customer>;

export const createClusterBody = z.object({ customerId: id, name }).meta({ id: 'CreateCluster' });
export const updateClusterBody = z.object({ name }).strict().meta({ id: 'UpdateCluster' });

export const cluster = z
  .object({
    id,
    name: z.string(),
    customerId: id,
    /** Only for accounts that may write at the cluster's customer (it enrolls agents). */
    enrollmentKey: z.string().optional(),
    /** The one-line installer, built from PUBLIC_URL, with the key. */
    installCommand: z.string().optional(),
  })
  .meta({ id: 'Cluster' });
export type Cluster = z.infer<typeof cluster>;

/** POST /api/clusters/:id/enrollment-limit (ADMIN): the cluster's hourly enrolment limit for the next hour. */
export const raiseEnrollmentLimitBody = z
  .object({ limit: z.number().int().min(1).max(1_000_000) })
  .strict()
  .meta({ id: 'RaiseEnrollmentLimit', example: { limit: 2000 } });
export type RaiseEnrollmentLimit = z.infer<typeof raiseEnrollmentLimitBody>;

/**
 * A cluster's enrolments in the last hour: its limit now, an ADMIN's running raise, the
 * new systems it took and the hosts it refused, by reason (`hourlyLimit`: the limit was reached;
 * `otherCustomer`: a host enrolled elsewhere presented this cluster's key).
 */
export const clusterEnrollment = z
  .object({
    clusterId: id,
    customerId: id,
    /** The limit that applies now: the variable's, or the raise while it runs. */
    hourlyLimit: z.number().int(),
    /** AGENT_ENROLL_PER_CLUSTER_PER_HOUR. */
    defaultLimit: z.number().int(),
    raise: z.object({ hourlyLimit: z.number().int(), until: instant, by: z.string().nullable() }).nullable(),
    enrolledLastHour: z.number().int(),
    refusedLastHour: z.object({
      /** Distinct hosts refused (a host retrying stays one). */
      hosts: z.number().int(),
      /** Their refused requests, counted since each host's first refusal of the hour. */
      attempts: z.number().int(),
      hourlyLimit: z.number().int(),
      otherCustomer: z.number().int(),
      lastAt: instant.nullable(),
    }),
  })
  .meta({ id: 'ClusterEnrollment' });
export type ClusterEnrollment = z.infer<typeof clusterEnrollment>;
