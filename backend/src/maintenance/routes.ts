/** /api/maintenance-windows: list (optionally `?customer=`), create, edit, delete. */
import { auditActor } from '../http/audit-actor.js';
import Router from '@koa/router';
import { idOf } from '../lib/ids.js';
import { currentPrincipal, requireRole } from '../http/route-guards.js';
import { parseInput } from '../lib/validate.js';
import {
  listQuerySchema,
  maintenanceWindow,
  windowChangesSchema,
  windowSchema,
} from '../../../contracts/maintenance.js';
import type { MaintenanceService } from './service.js';
import type { RouteDoc } from '../http/openapi.js';
import { z } from 'zod';

export function maintenanceRoutes(windows: MaintenanceService): Router {
  const router = new Router();
  const writer = requireRole('ADMIN', 'OPERATOR');

  router.get('/api/maintenance-windows', async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    const { customer } = parseInput(listQuerySchema, ctx.query);
    ctx.body = await windows.list(principal, customer);
  });
  router.get('/api/maintenance-windows/:id', async (ctx) => {
    ctx.body = await windows.get(currentPrincipal(ctx.state), idOf(ctx.params['id'], 'maintenance window'));
  });
  router.post('/api/maintenance-windows', writer, async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    ctx.status = 201;
    ctx.body = await windows.create(auditActor(ctx), principal, parseInput(windowSchema, ctx.request.body));
  });
  router.patch('/api/maintenance-windows/:id', writer, async (ctx) => {
    const principal = currentPrincipal(ctx.state);
    const changes = parseInput(windowChangesSchema, ctx.request.body);
    ctx.body = await windows.update(auditActor(ctx), principal, idOf(ctx.params['id'], 'maintenance window'), changes);
  });
  router.delete('/api/maintenance-windows/:id', writer, async (ctx) => {
    await windows.remove(auditActor(ctx), currentPrincipal(ctx.state), idOf(ctx.params['id'], 'maintenance window'));
    ctx.status = 204;
  });
  return router;
}

/** What maintenance/routes.ts serves, for the OpenAPI document (http/openapi.ts). */
const MAINTENANCE = 'Maintenance';
export const maintenanceApi: RouteDoc[] = [
  {
    method: 'get',
    path: '/api/maintenance-windows',
    tag: MAINTENANCE,
    access: 'signed-in',
    summary: 'List maintenance windows (optionally of one customer)',
    query: listQuerySchema,
    responses: {
      200: { description: 'The windows, each saying whether it is active now', schema: z.array(maintenanceWindow) },
    },
  },
  {
    method: 'get',
    path: '/api/maintenance-windows/:id',
    tag: MAINTENANCE,
    access: 'signed-in',
    summary: 'One maintenance window',
    responses: { 200: { description: 'The window', schema: maintenanceWindow } },
  },
  {
    method: 'post',
    path: '/api/maintenance-windows',
    tag: MAINTENANCE,
    access: 'admin-or-operator',
    summary: 'Create a maintenance window for a customer, cluster or system',
    body: windowSchema,
    responses: { 201: { description: 'Created', schema: maintenanceWindow } },
  },
  {
    method: 'patch',
    path: '/api/maintenance-windows/:id',
    tag: MAINTENANCE,
    access: 'admin-or-operator',
    summary: 'Change a maintenance window',
    body: windowChangesSchema,
    responses: { 200: { description: 'Changed', schema: maintenanceWindow } },
  },
  {
    method: 'delete',
    path: '/api/maintenance-windows/:id',
    tag: MAINTENANCE,
    access: 'admin-or-operator',
    summary: 'Delete a maintenance window',
    responses: { 204: { description: 'Deleted' } },
  },
];
