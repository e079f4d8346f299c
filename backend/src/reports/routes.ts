/**
 * /api/reports/availability (whoever may see the customer; JSON, CSV or PDF) and
 * /api/customers/:id/monthly-report (the monthly e-mail: ADMIN or an OPERATOR granted the customer).
 */
import {
  availabilityQuery,
  availabilityReport,
  monthlyReportSettings,
  monthlyReportUpdate,
} from '../../../contracts/reports.js';
import { idParam, routeOf } from '../http/route.js';
import { reportCsv } from './csv.js';
import type { MonthlyReports } from './monthly.js';
import { reportPdf } from './pdf.js';
import { reportFileName } from './render-text.js';
import type { ReportsService } from './service.js';

export interface ReportsDeps {
  reports: ReportsService;
  monthly: MonthlyReports;
}

const route = routeOf<ReportsDeps>();
const tag = 'Reports';
const customerId = { id: idParam('customer') };

export const reportsRoutes = [
  // who asks is settled (the guard) before the query is read: without credentials a 401, never a 400
  route({
    method: 'get',
    path: '/api/reports/availability',
    tag,
    access: 'signed-in',
    summary: "A customer's availability over days of its calendar, per system, cluster and in total",
    description:
      'Down time is the time an offline alert (any severity) or an alert of a rule that counts as downtime ' +
      '(`countsAsDowntime`; listed in `downtimeRules`) was open. Maintenance windows ' +
      'and periods while the customer was inactive are not counted and are listed as periods of their own; ' +
      'before `dataFrom` (the alert retention horizon) resolved alerts may have been deleted, so that time is ' +
      '`unknown`. Availability = 100 × (monitored − down) / monitored, time-weighted over systems for clusters ' +
      "and the total. Days are the customer's local days; the range ends at now.",
    query: availabilityQuery,
    responses: {
      200: {
        description: 'The report with the periods behind its figures',
        schema: availabilityReport,
        alternatives: {
          'text/csv': 'format=csv: one table (customer, clusters, systems, then the periods)',
          'application/pdf': 'format=pdf: the report to hand over (table and timeline)',
        },
      },
    },
    handler: async ({ reports }, { principal, query, ctx }) => {
      const report = await reports.availability(principal, query);
      // figures change as time passes and alerts resolve: never reuse a stored copy
      ctx.set('Cache-Control', 'no-store');
      if (query.format === 'json') return report;
      ctx.attachment(reportFileName(report, query.format));
      if (query.format === 'csv') {
        ctx.type = 'text/csv; charset=utf-8';
        return reportCsv(report);
      }
      ctx.type = 'application/pdf';
      return reportPdf(report);
    },
  }),
  route({
    method: 'get',
    path: '/api/customers/:id/monthly-report',
    tag,
    access: 'admin-or-operator',
    summary: "The customer's monthly report e-mail: on or off, recipients, the last deliveries",
    params: customerId,
    responses: { 200: { description: 'The settings', schema: monthlyReportSettings } },
    handler: ({ monthly }, { principal, params }) => monthly.settings(principal, params.id),
  }),
  route({
    method: 'put',
    path: '/api/customers/:id/monthly-report',
    tag,
    access: 'admin-or-operator',
    summary: "Switch the customer's monthly report e-mail on or off and set its recipients",
    description:
      "Sent on the 1st of each month in the customer's time zone (catching up until the 3rd), with the last " +
      'month as a PDF, through the SMTP settings; once per month.',
    params: customerId,
    body: monthlyReportUpdate,
    responses: { 200: { description: 'The settings', schema: monthlyReportSettings } },
    handler: ({ monthly }, { actor, principal, params, body }) =>
      monthly.updateSettings(actor, principal, params.id, body),
  }),
];
