/**
 * /api/reports/availability (whoever may see the customer; JSON, CSV or PDF) and
 * /api/customers/:id/monthly-report (the monthly e-mail: ADMIN or an OPERATOR granted the customer).
 */
import Router from '@koa/router';
import {
  availabilityQuery,
  availabilityReport,
  monthlyReportSettings,
  monthlyReportUpdate,
} from '../../../contracts/reports.js';
import { auditActor } from '../http/audit-actor.js';
import type { RouteDoc } from '../http/openapi.js';
import { currentPrincipal, requireRole, requireSignedIn } from '../http/route-guards.js';
import { idOf } from '../lib/ids.js';
import { parseInput } from '../lib/validate.js';
import { reportCsv } from './csv.js';
import type { MonthlyReports } from './monthly.js';
import { reportPdf } from './pdf.js';
import { reportFileName } from './render-text.js';
import type { ReportsService } from './service.js';

export function reportsRoutes(reports: ReportsService, monthly: MonthlyReports): Router {
  const router = new Router();
  const staff = requireRole('ADMIN', 'OPERATOR');

  // who asks is settled before the query is read: without credentials a 401, never a 400
  router.get('/api/reports/availability', requireSignedIn(), async (ctx) => {
    const query = parseInput(availabilityQuery, ctx.query);
    const report = await reports.availability(currentPrincipal(ctx.state), query);
    // figures change as time passes and alerts resolve: never reuse a stored copy
    ctx.set('Cache-Control', 'no-store');
    if (query.format === 'json') {
      ctx.body = report;
      return;
    }
    ctx.attachment(reportFileName(report, query.format));
    if (query.format === 'csv') {
      ctx.type = 'text/csv; charset=utf-8';
      ctx.body = reportCsv(report);
    } else {
      ctx.type = 'application/pdf';
      ctx.body = await reportPdf(report);
    }
  });

  router.get('/api/customers/:id/monthly-report', staff, async (ctx) => {
    ctx.body = await monthly.settings(currentPrincipal(ctx.state), idOf(ctx.params['id'], 'customer'));
  });
  router.put('/api/customers/:id/monthly-report', staff, async (ctx) => {
    const input = parseInput(monthlyReportUpdate, ctx.request.body);
    ctx.body = await monthly.updateSettings(
      auditActor(ctx),
      currentPrincipal(ctx.state),
      idOf(ctx.params['id'], 'customer'),
      input,
    );
  });
  return router;
}

const REPORTS = 'Reports';
export const reportsApi: RouteDoc[] = [
  {
    method: 'get',
    path: '/api/reports/availability',
    tag: REPORTS,
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
  },
  {
    method: 'get',
    path: '/api/customers/:id/monthly-report',
    tag: REPORTS,
    access: 'admin-or-operator',
    summary: "The customer's monthly report e-mail: on or off, recipients, the last deliveries",
    responses: { 200: { description: 'The settings', schema: monthlyReportSettings } },
  },
  {
    method: 'put',
    path: '/api/customers/:id/monthly-report',
    tag: REPORTS,
    access: 'admin-or-operator',
    summary: "Switch the customer's monthly report e-mail on or off and set its recipients",
    description:
      "Sent on the 1st of each month in the customer's time zone (catching up until the 3rd), with the last " +
      'month as a PDF, through the SMTP settings; once per month.',
    body: monthlyReportUpdate,
    responses: { 200: { description: 'The settings', schema: monthlyReportSettings } },
  },
];
