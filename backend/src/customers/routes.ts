/** /api/customers (ADMIN writes) and /api/clusters (ADMIN or a granted OPERATOR writes). */
import Router from '@koa/router';
import { z } from 'zod';
import { auditActor } from '../http/audit-actor.js';
import { currentPrincipal, requireRole } from '../http/route-guards.js';
import { parseInput } from '../lib/validate.js';
import type { CustomersService } from './service.js';
import { idOf } from '../lib/ids.js';

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

const name = z.string().trim().min(1, 'is required').max(200);
const customerFields = {
  name,
  notes: z.string().max(10_000),
  active: z.boolean(),
  timeZone: z.string().refine(isTimeZone, 'must be an IANA time zone such as Europe/Berlin'),
};
const createCustomer = z.object({
  ...customerFields,
  notes: customerFields.notes.default(''),
  active: customerFields.active.default(true),
  timeZone: customerFields.timeZone.default('UTC'),
});
const updateCustomer = z.object(customerFields).partial().strict();
const createCluster = z.object({ customerId: z.number().int().positive(), name });
const updateCluster = z.object({ name }).strict();

export function customersRoutes(customers: CustomersService): Router {
  const router = new Router();
  const admin = requireRole('ADMIN');

  router.get('/api/customers', async (ctx) => {
    ctx.body = await customers.listCustomers(currentPrincipal(ctx.state));
  });
  router.post('/api/customers', admin, async (ctx) => {
    ctx.status = 201;
    ctx.body = await customers.createCustomer(auditActor(ctx), parseInput(createCustomer, ctx.request.body));
  });
  router.patch('/api/customers/:id', admin, async (ctx) => {
    const input = parseInput(updateCustomer, ctx.request.body);
    ctx.body = await customers.updateCustomer(
      auditActor(ctx),
      currentPrincipal(ctx.state),
      idOf(ctx.params['id'], 'customer'),
      input,
    );
  });
  router.delete('/api/customers/:id', admin, async (ctx) => {
    await customers.deleteCustomer(auditActor(ctx), currentPrincipal(ctx.state), idOf(ctx.params['id'], 'customer'));
    ctx.status = 204;
  });

  router.get('/api/clusters', async (ctx) => {
    ctx.body = await customers.listClusters(currentPrincipal(ctx.state));
  });
  router.post('/api/clusters', async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    const input = parseInput(createCluster, ctx.request.body);
    ctx.status = 201;
    ctx.body = await customers.createCluster(auditActor(ctx), principal, input.customerId, input.name);
  });
  router.patch('/api/clusters/:id', async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    const input = parseInput(updateCluster, ctx.request.body);
    ctx.body = await customers.renameCluster(auditActor(ctx), principal, idOf(ctx.params['id'], 'cluster'), input.name);
  });
  router.post('/api/clusters/:id/enrollment-key', async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    ctx.body = await customers.rotateEnrollmentKey(auditActor(ctx), principal, idOf(ctx.params['id'], 'cluster'));
  });
  router.delete('/api/clusters/:id', async (ctx) => {
    await customers.deleteCluster(auditActor(ctx), currentPrincipal(ctx.state), idOf(ctx.params['id'], 'cluster'));
    ctx.status = 204;
  });
  return router;
}
