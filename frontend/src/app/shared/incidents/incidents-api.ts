import { HttpClient } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { Observable } from 'rxjs';

import { onTopics, Refreshing, refreshing } from '../../core/refresh';
import { alertParams, AlertState } from '../alerts/alerts-api';

export type IncidentState = 'open' | 'resolved';

/** A member alert of an incident: one offline system of the cluster. */
export interface IncidentAlert {
  id: number;
  systemId: number;
  systemName: string;
  state: AlertState;
}

/**
 * A cluster incident ("Site down: <cluster>") grouping the offline alerts of its systems, as
 * GET /api/incidents lists it (docs/api.md "Notification channels and routing"); alerts by system name.
 */
export interface Incident {
  id: number;
  title: string;
  customerId: number;
  customerName: string;
  clusterId: number;
  clusterName: string;
  state: IncidentState;
  startedAt: string;
  resolvedAt: string | null;
  alerts: IncidentAlert[];
}

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
