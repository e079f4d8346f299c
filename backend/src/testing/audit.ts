/** The audit trail services need, for tests (and benches) that build a service without the app. */
import type { Knex } from 'knex';
import { createAuditRepo } from '../audit/repo.js';
import { createAuditService } from '../audit/service.js';
import { systemClock, type Clock } from '../lib/clock.js';

export const auditTrailOn = (db: Knex, clock: Clock = systemClock) =>
  createAuditService({ repo: createAuditRepo(db), clock });
