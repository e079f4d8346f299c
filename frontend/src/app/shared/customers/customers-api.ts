import { HttpClient } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { forkJoin, map, Observable, tap } from 'rxjs';

import { Loaded, loaded } from '@console/core/loaded';
import { Changes, onTopics, Refreshing, refreshing } from '@console/core/refresh';
import type { Cluster, Customer, CustomerFields as CustomerChanges } from '@contracts/fleet';

// the JSON of /api/customers and /api/clusters, from the schemas the server answers with (contracts/fleet.ts)
export type { Cluster, Customer };

/** What the customer dialog sends: every field (the PATCH body of contracts/fleet.ts, none left out). */
export type CustomerFields = Required<CustomerChanges>;

/** Customers and their clusters, fetched together: every fleet page needs both. */
export interface Fleet {
  customers: Customer[];
  clusters: Cluster[];
}

export const CUSTOMERS_URL = '/api/customers';
export const CLUSTERS_URL = '/api/clusters';

/** Customers (ADMIN writes) and clusters (ADMIN or a granted OPERATOR writes). */
@Injectable({ providedIn: 'root' })
export class CustomersApi {
  private readonly http = inject(HttpClient);
  private readonly changed$ = new Changes();

  /** Customers and clusters the account may see, kept fresh; emits again after every change made here. */
  readonly fleet$: Observable<Refreshing<Fleet>> = refreshing(() => this.fleet(), this.changed$, onTopics('customers'));

  /** The customers the account may see, one answer (pages that filter or report by customer). */
  customers(): Observable<Customer[]> {
    return this.http.get<Customer[]>(CUSTOMERS_URL);
  }

  /** One answer, for dialogs that pick a customer or cluster. */
  loadFleet(): Observable<Loaded<Fleet>> {
    return loaded(this.fleet());
  }

  createCustomer(fields: CustomerFields): Observable<Customer> {
    return this.changed$.after(this.http.post<Customer>(CUSTOMERS_URL, fields));
  }

  updateCustomer(id: number, changes: Partial<CustomerFields>): Observable<Customer> {
    return this.changed$.after(this.http.patch<Customer>(`${CUSTOMERS_URL}/${id}`, changes));
  }

  /** Its clusters, systems and their samples go too. */
  deleteCustomer(id: number): Observable<void> {
    return this.done(this.http.delete<void>(`${CUSTOMERS_URL}/${id}`));
  }

  createCluster(customerId: number, name: string): Observable<Cluster> {
    return this.changed$.after(this.http.post<Cluster>(CLUSTERS_URL, { customerId, name }));
  }

  renameCluster(id: number, name: string): Observable<Cluster> {
    return this.changed$.after(this.http.patch<Cluster>(`${CLUSTERS_URL}/${id}`, { name }));
  }

  /** Its systems stay, without a cluster. */
  deleteCluster(id: number): Observable<void> {
    return this.done(this.http.delete<void>(`${CLUSTERS_URL}/${id}`));
  }

  /** A new enrollment key; the old one stops enrolling new agents at once. */
  rotateEnrollmentKey(id: number): Observable<Cluster> {
    return this.changed$.after(this.http.post<Cluster>(`${CLUSTERS_URL}/${id}/enrollment-key`, null));
  }

  /** Customers and clusters, one answer. */
  fleet(): Observable<Fleet> {
    return forkJoin({
      customers: this.http.get<Customer[]>(CUSTOMERS_URL),
      clusters: this.http.get<Cluster[]>(CLUSTERS_URL),
    });
  }

  private done(request: Observable<unknown>): Observable<void> {
    return request.pipe(
      map(() => undefined),
      tap(() => this.changed$.next()),
    );
  }
}

/** Sorts by name the way people read them ("web-2" before "web-10"). */
export function byName<T extends { name: string }>(a: T, b: T): number {
  return a.name.localeCompare(b.name, undefined, { numeric: true, sensitivity: 'base' });
}
