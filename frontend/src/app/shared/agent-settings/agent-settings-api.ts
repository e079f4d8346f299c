import { Injectable } from '@angular/core';
import { Observable } from 'rxjs';

import { Collection } from '@console/core/collection';
import { onTopics, Refreshing } from '@console/core/refresh';
import type { AgentSetting, AgentSettingChanges, AgentSettingsListing, NewAgentSetting } from '@contracts/agents';

// the JSON of /api/agent-settings, from the schemas the server answers and reads with (contracts/agents.ts)
/** One setting as GET /api/agent-settings lists it; a secret's value is never sent (always null). */
export type { AgentSetting, AgentSettingChanges, AgentSettingsListing, NewAgentSetting };
/** Where a setting applies: every system of a cluster, or one system (on top of its cluster's). */
export type SettingScope = AgentSetting['scope'];
/** One key the agent of a system gets, and the layer it comes from. */
export type EffectiveSetting = NonNullable<AgentSettingsListing['effective']>[number];

export const AGENT_SETTINGS_URL = '/api/agent-settings';

/** Same rule as the server (contracts/agents.ts KEY_PATTERN; a value, so not imported): a-z first, then up to 63 of a-z, 0-9, "_", "." and "-". */
export const SETTING_KEY_PATTERN = /^[a-z][a-z0-9_.-]{0,63}$/;

/** Agent settings per cluster and per system (read: who sees the customer; write: ADMIN or a granted OPERATOR). */
@Injectable({ providedIn: 'root' })
export class AgentSettingsApi extends Collection<AgentSetting, NewAgentSetting, AgentSettingChanges> {
  constructor() {
    super(AGENT_SETTINGS_URL);
  }

  /** Any change reloads every open editor: a cluster's settings are part of its systems' effective view. */
  listing$(scope: SettingScope): Observable<Refreshing<AgentSettingsListing>> {
    return this.list$<AgentSettingsListing>(onTopics('agent-settings'), { [scope.type]: scope.id });
  }
}
