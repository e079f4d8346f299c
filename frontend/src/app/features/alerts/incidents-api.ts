import { HttpClient } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { Observable } from 'rxjs';

import { onTopics, Refreshing, refreshing } from '@console/core/refresh';
import { alertParams } from '@console/shared/alerts/alerts-api';
import type { Incident } from '@contracts/alerts';

// the JSON of /api/incidents, from the schemas the server answers with (contracts/alerts.ts)
export type { Incident };
export type IncidentState = Incident['state'];
/** A member alert of an incident: one offline system of the cluster. */
export type IncidentAlert = Incident['alerts'][number];

export interface IncidentFilter {
  state?: IncidentState;
  customer?: number | null;
  limit?: number;
}

export const INCIDENTS_URL = '/api/incidents';

/** The URL of one incident. */
export const incidentUrl = (id: number): string => `${INCIDENTS_URL}/${id}`;

/**
 * Incidents open and resolve with the evaluation run (`changes` topic `incidents`, ids: the customer),
 * and alerts join an open one (topic `alerts`): both reload.
 */
const onIncidentChanges = onTopics('incidents', 'alerts');

/** How many systems an incident spans (each keeps its own alert). */
export function incidentSystems(incident: Incident): number {
  return new Set(incident.alerts.map((a) => a.systemId)).size;
}

/** "3 systems", "1 system". */
export function systemsText(count: number): string {
  return `${count} ${count === 1 ? 'system' : 'systems'}`;
}

/** Cluster incidents of the customers the account sees (read only: the evaluation run opens and resolves them). */
@Injectable({ providedIn: 'root' })
export class IncidentsApi {
  private readonly http = inject(HttpClient);

  /** The incidents matching a filter, newest first, kept fresh. */
  incidents$(filter: IncidentFilter): Observable<Refreshing<Incident[]>> {
    return refreshing(() => this.list(filter), undefined, onIncidentChanges);
  }

  list(filter: IncidentFilter): Observable<Incident[]> {
    return this.http.get<Incident[]>(INCIDENTS_URL, { params: alertParams(filter) });
  }

  /** One incident, kept fresh (its topic names customers, not incidents: any incident or alert change). */
  incident$(id: number): Observable<Refreshing<Incident>> {
    return refreshing(() => this.http.get<Incident>(incidentUrl(id)), undefined, onIncidentChanges);
  }
}
