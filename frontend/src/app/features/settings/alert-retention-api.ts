import { Injectable } from '@angular/core';

import { EditableResource } from '@console/core/resource';

import type { AlertRetention } from '@contracts/settings';

/** `retentionDays`: resolved alerts older than this are deleted by the hourly check; 0 keeps them (contracts/settings.ts). */
export type { AlertRetention };

export const ALERT_RETENTION_URL = '/api/settings/alerts';

@Injectable({ providedIn: 'root' })
export class AlertRetentionApi extends EditableResource<AlertRetention> {
  constructor() {
    super(ALERT_RETENTION_URL);
  }
}
