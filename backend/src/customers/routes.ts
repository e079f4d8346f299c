/** /api/customers (ADMIN writes) and /api/clusters (ADMIN or a granted OPERATOR writes). */
import { z } from 'zod';
import {
  cluster,
  createClusterBody as createCluster,
  createCustomerBody as createCustomer,
  customer,
  updateClusterBody as updateCluster,
  updateCustomerBody as updateCustomer,
} from '../../../contracts/fleet.js';
import { refusalDoc } from '../http/openapi.js';
import { idParam, routeOf } from '../http/route.js';
import type { CustomersService } from './service.js';

const route = routeOf<CustomersService>();
const tag = 'Fleet';
const customerId = { id: idParam('customer') };
const clusterId = { id: idParam('cluster') };
const nameTaken = refusalDoc('The name is taken (per customer for clusters)');

export const customersRoutes = [
  route({
    method: 'get',
    path: '/api/customers',
    tag,
    access: 'signed-in',
    summary: 'List the customers the account may see',
    responses: { 200: { description: 'The customers', schema: z.array(customer) } },
    handler: (customers, { principal }) => customers.listCustomers(principal),
  }),
  route({
    method: 'post',
    path: '/api/customers',
    tag,
    access: 'admin',
    summary: 'Create a customer',
    body: createCustomer,
    responses: { 201: { description: 'Created', schema: customer }, 409: nameTaken },
    handler: (customers, { actor, body }) => customers.createCustomer(actor, body),
  }),
  route({
    method: 'patch',
    path: '/api/customers/:id',
    tag,
    access: 'admin',
    summary: 'Change a customer',
    params: customerId,
    body: updateCustomer,
    responses: { 200: { description: 'Changed', schema: customer }, 409: nameTaken },
    handler: (customers, { actor, principal, params, body }) =>
      customers.updateCustomer(actor, principal, params.id, body),
  }),
  route({
    method: 'delete',
    path: '/api/customers/:id',
    tag,
    access: 'admin',
    summary: 'Delete a customer with its clusters and systems',
    params: customerId,
    responses: { 204: { description: 'Deleted' } },
    handler: async (customers, { actor, principal, params }) => {
      await customers.deleteCustomer(actor, principal, params.id);
    },
  }),
  route({
    method: 'get',
    path: '/api/clusters',
    tag,
    access: 'signed-in',
    summary: 'List the clusters the account may see',
    responses: { 200: { description: 'The clusters', schema: z.array(cluster) } },
    handler: (customers, { principal }) => customers.listClusters(principal),
  }),
  route({
    method: 'post',
    path: '/api/clusters',
    tag,
    access: 'customer-writer',
    summary: 'Create a cluster',
    body: createCluster,
    responses: { 201: { description: 'Created, with its enrolment key', schema: cluster }, 409: nameTaken },
    handler: (customers, { actor, principal, body }) =>
      customers.createCluster(actor, principal, body.customerId, body.name),
  }),
  route({
    method: 'patch',
    path: '/api/clusters/:id',
    tag,
    access: 'customer-writer',
    summary: 'Rename a cluster',
    params: clusterId,
    body: updateCluster,
    responses: { 200: { description: 'Renamed', schema: cluster }, 409: nameTaken },
    handler: (customers, { actor, principal, params, body }) =>
      customers.renameCluster(actor, principal, params.id, body.name),
  }),
  route({
    method: 'post',
    path: '/api/clusters/:id/enrollment-key',
    tag,
    access: 'customer-writer',
    summary: "Rotate a cluster's enrolment key",
    description: 'Enrolled agents keep working; the old key enrols no new host.',
    params: clusterId,
    responses: { 200: { description: 'The cluster with its new key', schema: cluster } },
    handler: (customers, { actor, principal, params }) => customers.rotateEnrollmentKey(actor, principal, params.id),
  }),
  route({
    method: 'delete',
    path: '/api/clusters/:id',
    tag,
    access: 'customer-writer',
    summary: 'Delete a cluster with its systems',
    params: clusterId,
    responses: { 204: { description: 'Deleted' } },
    handler: async (customers, { actor, principal, params }) => {
      await customers.deleteCluster(actor, principal, params.id);
    },
  }),
];
