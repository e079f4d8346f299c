import { HttpClient } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { map, Observable, Subject, tap } from 'rxjs';

import { onTopics, Refreshing, refreshing } from '../../core/refresh';

/** Where a setting applies: every system of a cluster, or one system (on top of its cluster's). */
export interface SettingScope {
  type: 'cluster' | 'system';
  id: number;
}

/** One setting as GET /api/agent-settings lists it; a secret's value is never sent (always null). */
export interface AgentSetting {
  id: number;
  scope: SettingScope;
  key: string;
  secret: boolean;
  value: string | null;
  updatedAt: string;
}

/** One key the agent of a system gets, and the layer it comes from. */
export interface EffectiveSetting {
  key: string;
  secret: boolean;
  value: string | null;
  from: SettingScope;
}

/** A scope's own settings; for a system also what is in effect (cluster first, the system's own on top). */
export interface AgentSettingsListing {
  settings: AgentSetting[];
  effective?: EffectiveSetting[];
}

export interface NewAgentSetting {
  scope: SettingScope;
  key: string;
  value: string;
  secret: boolean;
}

/** PATCH body: a secret's `value` left out keeps the stored one. */
export interface AgentSettingChanges {
  value?: string;
  secret?: boolean;
}

export const AGENT_SETTINGS_URL = '/api/agent-settings';

/** Same rule as the server: a-z first, then up to 63 of a-z, 0-9, "_", "." and "-". */
export const SETTING_KEY_PATTERN = /^[a-z][a-z0-9_.-]{0,63}$/;

/** Agent settings per cluster and per system (read: who sees the customer; write: ADMIN or a granted OPERATOR). */
@Injectable({ providedIn: 'root' })
export class AgentSettingsApi {
  private readonly http = inject(HttpClient);
  /** Any change reloads every open editor: a cluster's settings are part of its systems' effective view. */
  private readonly changed$ = new Subject<void>();

  listing$(scope: SettingScope): Observable<Refreshing<AgentSettingsListing>> {
    return refreshing(
      () => this.http.get<AgentSettingsListing>(AGENT_SETTINGS_URL, { params: { [scope.type]: scope.id } }),
      this.changed$,
      onTopics('agent-settings'),
    );
  }

  create(setting: NewAgentSetting): Observable<AgentSetting> {
    return this.http.post<AgentSetting>(AGENT_SETTINGS_URL, setting).pipe(tap(() => this.changed$.next()));
  }

  update(id: number, changes: AgentSettingChanges): Observable<AgentSetting> {
    return this.http.patch<AgentSetting>(`${AGENT_SETTINGS_URL}/${id}`, changes).pipe(tap(() => this.changed$.next()));
  }

  remove(id: number): Observable<void> {
    return this.http.delete<void>(`${AGENT_SETTINGS_URL}/${id}`).pipe(
      map(() => undefined),
      tap(() => this.changed$.next()),
    );
  }
}
