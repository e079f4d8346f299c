/** GET /api/storage (ADMIN): the storage panel's data (storage-report.ts). */
import { routeOf } from '../http/route.js';
import type { StorageReporter } from './storage-report.js';
import { storageReport } from '../../../contracts/settings.js';

const route = routeOf<StorageReporter>();

export const storageRoutes = [
  route({
    method: 'get',
    path: '/api/storage',
    tag: 'Settings',
    access: 'admin',
    summary: "The database's size, the samples' compression and the TimescaleDB policy jobs",
    responses: { 200: { description: 'The storage report', schema: storageReport } },
    handler: (storage) => storage.report(),
  }),
];
