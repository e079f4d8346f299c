/** /api/customers (ADMIN writes) and /api/clusters (ADMIN or a granted OPERATOR writes). */
import Router from '@koa/router';
import { z } from 'zod';
import {
  cluster,
  createClusterBody as createCluster,
  createCustomerBody as createCustomer,
  customer,
  updateClusterBody as updateCluster,
  updateCustomerBody as updateCustomer,
} from '../../../contracts/fleet.js';
import { refusalDoc, type RouteDoc } from '../http/openapi.js';
import { auditActor } from '../http/audit-actor.js';
import { currentPrincipal, requireRole } from '../http/route-guards.js';
import { parseInput } from '../lib/validate.js';
import type { CustomersService } from './service.js';
import { idOf } from '../lib/ids.js';

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

const FLEET = 'Fleet';
const nameTaken = refusalDoc('The name is taken (per customer for clusters)');
export const customersApi: RouteDoc[] = [
  {
    method: 'get',
    path: '/api/customers',
    tag: FLEET,
    access: 'signed-in',
    summary: 'List the customers the account may see',
    responses: { 200: { description: 'The customers', schema: z.array(customer) } },
  },
  {
    method: 'post',
    path: '/api/customers',
    tag: FLEET,
    access: 'admin',
    summary: 'Create a customer',
    body: createCustomer,
    responses: { 201: { description: 'Created', schema: customer }, 409: nameTaken },
  },
  {
    method: 'patch',
    path: '/api/customers/:id',
    tag: FLEET,
    access: 'admin',
    summary: 'Change a customer',
    body: updateCustomer,
    responses: { 200: { description: 'Changed', schema: customer }, 409: nameTaken },
  },
  {
    method: 'delete',
    path: '/api/customers/:id',
    tag: FLEET,
    access: 'admin',
    summary: 'Delete a customer with its clusters and systems',
    responses: { 204: { description: 'Deleted' } },
  },
  {
    method: 'get',
    path: '/api/clusters',
    tag: FLEET,
    access: 'signed-in',
    summary: 'List the clusters the account may see',
    responses: { 200: { description: 'The clusters', schema: z.array(cluster) } },
  },
  {
    method: 'post',
    path: '/api/clusters',
    tag: FLEET,
    access: 'admin-or-operator',
    summary: 'Create a cluster',
    body: createCluster,
    responses: { 201: { description: 'Created, with its enrolment key', schema: cluster }, 409: nameTaken },
  },
  {
    method: 'patch',
    path: '/api/clusters/:id',
    tag: FLEET,
    access: 'admin-or-operator',
    summary: 'Rename a cluster',
    body: updateCluster,
    responses: { 200: { description: 'Renamed', schema: cluster }, 409: nameTaken },
  },
  {
    method: 'post',
    path: '/api/clusters/:id/enrollment-key',
    tag: FLEET,
    access: 'admin-or-operator',
    summary: "Rotate a cluster's enrolment key",
    description: 'Enrolled agents keep working; the old key enrols no new host.',
    responses: { 200: { description: 'The cluster with its new key', schema: cluster } },
  },
  {
    method: 'delete',
    path: '/api/clusters/:id',
    tag: FLEET,
    access: 'admin-or-operator',
    summary: 'Delete a cluster with its systems',
    responses: { 204: { description: 'Deleted' } },
  },
];
