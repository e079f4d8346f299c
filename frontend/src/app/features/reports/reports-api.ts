import { HttpClient, HttpParams } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { Observable } from 'rxjs';

import type {
  AvailabilityPeriod,
  AvailabilityReport,
  MonthlyReportSettings,
  MonthlyReportUpdate,
  ReportFormat,
  SystemAvailability,
} from '@contracts/reports';

// the JSON of /api/reports/availability and /api/customers/:id/monthly-report (contracts/reports.ts)
export type { AvailabilityPeriod, AvailabilityReport, MonthlyReportSettings, MonthlyReportUpdate, SystemAvailability };

export const AVAILABILITY_URL = '/api/reports/availability';
export const monthlyReportUrl = (customerId: number) => `/api/customers/${customerId}/monthly-report`;

/** A report's customer and local days (both included), as the page's query parameters carry them. */
export interface ReportRequest {
  customer: number;
  from: string;
  to: string;
}

@Injectable({ providedIn: 'root' })
export class ReportsApi {
  private readonly http = inject(HttpClient);

  availability(request: ReportRequest): Observable<AvailabilityReport> {
    return this.http.get<AvailabilityReport>(AVAILABILITY_URL, { params: paramsOf(request) });
  }

  monthlySettings(customerId: number): Observable<MonthlyReportSettings> {
    return this.http.get<MonthlyReportSettings>(monthlyReportUrl(customerId));
  }

  saveMonthlySettings(customerId: number, update: MonthlyReportUpdate): Observable<MonthlyReportSettings> {
    return this.http.put<MonthlyReportSettings>(monthlyReportUrl(customerId), update);
  }
}

function paramsOf(request: ReportRequest, format?: ReportFormat): HttpParams {
  let params = new HttpParams().set('customer', request.customer).set('from', request.from).set('to', request.to);
  if (format) params = params.set('format', format);
  return params;
}

/** The download link of the CSV or PDF (a plain GET with the session cookie). */
export function downloadUrl(request: ReportRequest, format: 'csv' | 'pdf'): string {
  return `${AVAILABILITY_URL}?${paramsOf(request, format).toString()}`;
}

export type RangePreset = 'this-month' | 'last-month' | 'custom';

/** Today's date YYYY-MM-DD in `timeZone` (the server counts days in the customer's zone too). */
export function todayIn(timeZone: string, now: Date = new Date()): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' })
      .formatToParts(now)
      .map((p) => [p.type, p.value]),
  );
  return `${parts['year']}-${parts['month']}-${parts['day']}`;
}

/** The local days of a preset: this month so far, or the whole of last month. */
export function presetRange(preset: Exclude<RangePreset, 'custom'>, today: string): { from: string; to: string } {
  const [year, month] = today.split('-').map(Number) as [number, number];
  if (preset === 'this-month') return { from: `${today.slice(0, 7)}-01`, to: today };
  const last = new Date(Date.UTC(year, month - 1, 0)); // day 0 of this month: the last day of the previous one
  const y = last.getUTCFullYear();
  const m = String(last.getUTCMonth() + 1).padStart(2, '0');
  return { from: `${y}-${m}-01`, to: `${y}-${m}-${String(last.getUTCDate()).padStart(2, '0')}` };
}

/** "99.958 %", never rounded up to 100 % while anything was down; "n/a" when nothing was monitored. */
export function availabilityText(value: number | null): string {
  return value === null ? 'n/a' : `${(Math.floor(value * 1000) / 1000).toFixed(3)} %`;
}

/** "3 d 4 h 5 min", "45 min", "0 min". */
export function durationText(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const rest = minutes % 60;
  return (
    [days ? `${days} d` : '', hours ? `${hours} h` : '', rest ? `${rest} min` : ''].filter(Boolean).join(' ') || '0 min'
  );
}
