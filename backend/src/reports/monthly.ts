/**
 * The monthly report e-mail: per customer, opt-in, to the listed addresses, with
 * last month's PDF attached. The hourly housekeeping calls `sendDue`; a customer's mail goes out at
 * the first run on the 1st of the month in the customer's zone (a run missed by downtime catches up
 * until the 3rd), once: the month's row in `report_deliveries` is claimed before sending and keeps
 * the outcome, so a restart sends nothing twice. While SMTP is off nothing is claimed (it goes once
 * SMTP is on, within those days). Each outcome is in the audit log (actor `system`).
 */
import type { MonthlyReportSettings } from '../../../contracts/reports.js';
import { canWriteCustomer, type Principal } from '../lib/access.js';
import { SYSTEM_ACTOR, type AuditActor, type AuditTrail } from '../lib/audit-trail.js';
import type { Clock } from '../lib/clock.js';
import { Forbidden } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import type { Mailer } from '../mail/mailer.js';
import { localDateOf, monthKey, monthRange, previousMonthOf, safeZone } from './calendar.js';
import { reportPdf } from './pdf.js';
import { countedAsDown, formatAvailability, formatDuration, periodLabel, reportFileName } from './render-text.js';
import type { ReportsRepo } from './repo.js';
import type { ReportsService } from './service.js';

/** The 1st, and two more days for a month whose 1st the app was down all day. */
export const CATCH_UP_DAYS = 3;

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

export function createMonthlyReports({
  repo,
  reports,
  mailer,
  audit,
  clock,
  log,
  authUrl,
}: {
  repo: ReportsRepo;
  reports: ReportsService;
  mailer: Mailer;
  audit: AuditTrail;
  clock: Clock;
  log: Logger;
  authUrl: string;
}) {
  async function settingsView(customerId: number): Promise<MonthlyReportSettings> {
    const [settings, deliveries] = await Promise.all([
      repo.monthlySettings(customerId),
      repo.deliveries(customerId, 12),
    ]);
    return {
      customerId,
      enabled: settings.enabled,
      recipients: settings.recipients,
      deliveries: deliveries.map((d) => ({
        month: d.month,
        status: d.status,
        attempts: d.attempts,
        sentAt: d.sentAt?.toISOString() ?? null,
        error: d.lastError,
      })),
    };
  }

  /** Recipients' addresses are the customer's contacts: the customer's writers read and set them. */
  async function writable(principal: Principal, customerId: number): Promise<void> {
    await reports.visibleCustomer(principal, customerId);
    if (!canWriteCustomer(principal, customerId)) throw new Forbidden('You may not change this customer');
  }

  async function sendOne(
    customer: { id: number; name: string; timeZone: string },
    recipients: string[],
    month: { year: number; month: number },
    key: string,
  ): Promise<boolean> {
    const zone = customer.timeZone;
    const [from, to] = monthRange(month.year, month.month, zone);
    const fromDate = localDateOf(from, zone);
    const toDate = localDateOf(to - 1, zone);
    try {
      const report = await reports.build({ ...customer, active: true }, { from: fromDate, to: toDate });
      const pdf = await reportPdf(report);
      const title = `${MONTH_NAMES[month.month - 1]} ${month.year}`;
      const link = `${authUrl}/reports/availability?customer=${customer.id}&from=${report.fromDate}&to=${report.toDate}`;
      await mailer.send({
        to: recipients.join(', '),
        subject: `Availability report ${title}: ${customer.name}`,
        text: [
          `Availability of ${customer.name}, ${periodLabel(report)}: ${formatAvailability(report.total.availability)}`,
          `Down ${formatDuration(report.total.downMs)}, maintenance ${formatDuration(report.total.maintenanceMs)}.`,
          countedAsDown(report.downtimeRules),
          '',
          ...report.systems.map((s) => `- ${s.name}: ${formatAvailability(s.availability)}`),
          '',
          `The report is attached as a PDF. In the console: ${link}`,
          '',
        ].join('\n'),
        attachments: [{ filename: reportFileName(report, 'pdf'), content: pdf, contentType: 'application/pdf' }],
      });
      await repo.transaction(async (trx) => {
        await repo.finishDelivery(customer.id, key, { status: 'sent', at: clock.now() }, trx);
        await audit.record(trx, SYSTEM_ACTOR, {
          action: 'report.monthly.sent',
          targetType: 'customer',
          targetId: customer.id,
          customerId: customer.id,
          after: { month: key, recipients, availability: report.total.availability },
        });
      });
      log.info({ customerId: customer.id, month: key, recipients: recipients.length }, 'Monthly report sent');
      return true;
    } catch (error) {
      const message = (error as Error).message;
      await repo.transaction(async (trx) => {
        await repo.finishDelivery(customer.id, key, { status: 'failed', error: message }, trx);
        await audit.record(trx, SYSTEM_ACTOR, {
          action: 'report.monthly.failed',
          targetType: 'customer',
          targetId: customer.id,
          customerId: customer.id,
          after: { month: key, error: message },
        });
      });
      log.warn(
        { customerId: customer.id, month: key, err: { message } },
        'Monthly report not sent; retrying next hour',
      );
      return false;
    }
  }

  return {
    async settings(principal: Principal, customerId: number): Promise<MonthlyReportSettings> {
      await writable(principal, customerId);
      return settingsView(customerId);
    },

    async updateSettings(
      actor: AuditActor,
      principal: Principal,
      customerId: number,
      input: { enabled: boolean; recipients: string[] },
    ): Promise<MonthlyReportSettings> {
      await writable(principal, customerId);
      const recipients = [...new Set(input.recipients)];
      await repo.transaction(async (trx) => {
        const before = await repo.monthlySettings(customerId, trx);
        await repo.saveMonthlySettings({ customerId, enabled: input.enabled, recipients }, clock.now(), trx);
        await audit.record(trx, actor, {
          action: 'customer.monthly_report.update',
          targetType: 'customer',
          targetId: customerId,
          customerId,
          before: { enabled: before.enabled, recipients: before.recipients },
          after: { enabled: input.enabled, recipients },
        });
      });
      return settingsView(customerId);
    },

    /** Sends every monthly report that is due; returns how many went out. Never throws for one customer. */
    async sendDue(): Promise<number> {
      if (!(await mailer.isEnabled())) return 0;
      let sent = 0;
      for (const customer of await repo.monthlySubscribers()) {
        // an inactive customer is not monitored (alerting is off): no report to hand over
        if (!customer.active || customer.recipients.length === 0) continue;
        const now = clock.now().getTime();
        const zone = safeZone(customer.timeZone);
        if (localDateOf(now, zone).day > CATCH_UP_DAYS) continue;
        const month = previousMonthOf(now, zone);
        const key = monthKey(month.year, month.month);
        if (!(await repo.claimDelivery(customer.id, key, customer.recipients, clock.now()))) continue;
        if (await sendOne({ ...customer, timeZone: zone }, customer.recipients, month, key)) sent += 1;
      }
      return sent;
    },
  };
}

export type MonthlyReports = ReturnType<typeof createMonthlyReports>;
