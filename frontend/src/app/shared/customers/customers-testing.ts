import { HttpTestingController } from '@angular/common/http/testing';

import { nextRequest } from '@console/testing';
import { Cluster, Customer, CLUSTERS_URL, CUSTOMERS_URL } from './customers-api';

/** A customer for specs: Acme (10), active, in UTC, unless told otherwise. */
export function customerBody(overrides: Partial<Customer> = {}): Customer {
  return { id: 10, name: 'Acme', active: true, notes: '', timeZone: 'UTC', createdAt: '', ...overrides };
}

/** The two customers most specs show: Acme (10) and Globex (20). */
export const twoCustomers = (): Customer[] => [customerBody(), customerBody({ id: 20, name: 'Globex' })];

/**
 * Answers the fleet's two reads a page or dialog makes on opening, customers then clusters:
 * Acme and Globex without clusters unless told otherwise.
 */
export async function answerFleet(
  http: HttpTestingController,
  customers: Customer[] = twoCustomers(),
  clusters: Partial<Cluster>[] = [],
): Promise<void> {
  (await nextRequest(http, { method: 'GET', url: CUSTOMERS_URL })).flush(customers);
  (await nextRequest(http, { method: 'GET', url: CLUSTERS_URL })).flush(clusters);
}
