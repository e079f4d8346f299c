import { inject, Injectable } from '@angular/core';
import { forkJoin, map, Observable } from 'rxjs';

import { User } from '@console/core/auth';
import { loaded, Loaded } from '@console/core/loaded';
import { mayWriteAt } from '@console/core/rights';
import { byName, CustomersApi } from '@console/shared/customers/customers-api';
import { SystemsApi } from '@console/shared/systems/systems-api';
import { ScopeType } from './rules-api';

export { SYSTEMS_URL } from '@console/shared/systems/systems-api';

export interface ScopeTarget {
  id: number;
  label: string;
  customerId: number;
  /** The customer's time zone: weekly maintenance windows are read in it. */
  timeZone: string;
}

export type ScopeTargets = Record<ScopeType, ScopeTarget[]>;

/** Where a rule may be placed: globally, or at a customer, cluster or system. */
export type ScopeChoice = 'global' | ScopeType;

/** Where a new rule may go: an override never globally; a new global rule only for an ADMIN. */
export function scopeChoices(overriding: boolean, isAdmin: boolean): ScopeChoice[] {
  return [...(overriding || !isAdmin ? [] : (['global'] as ScopeChoice[])), 'customer', 'cluster', 'system'];
}

/**
 * The customers, clusters and systems an account may place a rule override or a maintenance window
 * at: only those of customers it may write at (the server refuses the others).
 */
@Injectable({ providedIn: 'root' })
export class ScopeTargetsApi {
  private readonly customersApi = inject(CustomersApi);
  private readonly systemsApi = inject(SystemsApi);

  load(user: User | null): Observable<Loaded<ScopeTargets>> {
    return loaded(
      forkJoin({ fleet: this.customersApi.fleet(), systems: this.systemsApi.all() }).pipe(
        map(({ fleet: { customers, clusters }, systems }) => {
          const writable = customers.filter((c) => mayWriteAt(user, c.id)).sort(byName);
          const names = new Map(customers.map((c) => [c.id, c.name]));
          const zones = new Map(customers.map((c) => [c.id, c.timeZone]));
          const zone = (customerId: number) => zones.get(customerId) ?? 'UTC';
          const ok = (customerId: number) => mayWriteAt(user, customerId);
          return {
            customer: writable.map((c) => ({ id: c.id, label: c.name, customerId: c.id, timeZone: c.timeZone })),
            cluster: clusters
              .filter((c) => ok(c.customerId))
              .sort(byName)
              .map((c) => ({
                id: c.id,
                label: `${c.name} (${names.get(c.customerId) ?? ''})`,
                customerId: c.customerId,
                timeZone: zone(c.customerId),
              })),
            system: systems
              .filter((s) => ok(s.customer.id))
              .sort(byName)
              .map((s) => ({
                id: s.id,
                label: `${s.name} (${s.customer.name})`,
                customerId: s.customer.id,
                timeZone: zone(s.customer.id),
              })),
          };
        }),
      ),
    );
  }
}
