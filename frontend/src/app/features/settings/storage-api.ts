import { HttpClient } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { Observable } from 'rxjs';

import { Refreshing, refreshing } from '@console/core/refresh';

import type { StorageJob, StorageReport } from '@contracts/settings';

// GET /api/storage (docs/api.md "Storage"), from the schema the server answers with (contracts/settings.ts)
export type { StorageJob, StorageReport };
export type StorageJobState = StorageJob['state'];

export const STORAGE_URL = '/api/storage';

@Injectable({ providedIn: 'root' })
export class StorageApi {
  private readonly http = inject(HttpClient);

  /** Sizes and jobs change slowly and announce nothing: the 30 s / 5 min refresh is enough. */
  readonly report$: Observable<Refreshing<StorageReport>> = refreshing(() => this.http.get<StorageReport>(STORAGE_URL));
}

/** "1.5 GB": bytes in the binary units disks are sold in decimal ones, so say both plainly. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value >= 10 || unit === 0 ? value.toFixed(0) : value.toFixed(1)} ${units[unit]}`;
}

/** "every 12 h", "every 5 min", "every day". */
export function scheduleText(seconds: number): string {
  if (seconds % 86_400 === 0) return seconds === 86_400 ? 'every day' : `every ${seconds / 86_400} days`;
  if (seconds % 3_600 === 0) return `every ${seconds / 3_600} h`;
  return `every ${Math.round(seconds / 60)} min`;
}
