/** /api/maintenance-windows: list (optionally `?customer=`), create, edit, delete. */
import { z } from 'zod';
import { idParam, routeOf } from '../http/route.js';
import {
  listQuerySchema,
  maintenanceWindow,
  windowChangesSchema,
  windowSchema,
} from '../../../contracts/maintenance.js';
import type { MaintenanceService } from './service.js';

const route = routeOf<MaintenanceService>();
const MAINTENANCE = 'Maintenance';
const windowId = { id: idParam('maintenance window') };

export const maintenanceRoutes = [
  route({
    method: 'get',
    path: '/api/maintenance-windows',
    tag: MAINTENANCE,
    access: 'signed-in',
    summary: 'List maintenance windows (optionally of one customer)',
    query: listQuerySchema,
    responses: {
      200: { description: 'The windows, each saying whether it is active now', schema: z.array(maintenanceWindow) },
    },
    handler: (windows, { principal, query }) => windows.list(principal, query.customer),
  }),
  route({
    method: 'get',
    path: '/api/maintenance-windows/:id',
    tag: MAINTENANCE,
    access: 'signed-in',
    summary: 'One maintenance window',
    params: windowId,
    responses: { 200: { description: 'The window', schema: maintenanceWindow } },
    handler: (windows, { principal, params }) => windows.get(principal, params.id),
  }),
  route({
    method: 'post',
    path: '/api/maintenance-windows',
    tag: MAINTENANCE,
    access: 'admin-or-operator',
    summary: 'Create a maintenance window for a customer, cluster or system',
    body: windowSchema,
    responses: { 201: { description: 'Created', schema: maintenanceWindow } },
    handler: (windows, { actor, principal, body }) => windows.create(actor, principal, body),
  }),
  route({
    method: 'patch',
    path: '/api/maintenance-windows/:id',
    tag: MAINTENANCE,
    access: 'admin-or-operator',
    summary: 'Change a maintenance window',
    params: windowId,
    body: windowChangesSchema,
    responses: { 200: { description: 'Changed', schema: maintenanceWindow } },
    handler: (windows, { actor, principal, params, body }) => windows.update(actor, principal, params.id, body),
  }),
  route({
    method: 'delete',
    path: '/api/maintenance-windows/:id',
    tag: MAINTENANCE,
    access: 'admin-or-operator',
    summary: 'Delete a maintenance window',
    params: windowId,
    responses: { 204: { description: 'Deleted' } },
    handler: async (windows, { actor, principal, params }) => {
      await windows.remove(actor, principal, params.id);
    },
  }),
];
