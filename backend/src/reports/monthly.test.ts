/**
 * The monthly report e-mail from the hourly housekeeping, with a fake clock and a real SMTP sink:
 * due at local midnight of the 1st in each customer's zone, sent once per month even when the
 * services are built anew (a restart), nothing claimed while SMTP is off, a failed send retried
 * the next hour, each outcome in the audit log.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { simpleParser } from 'mailparser';
import { PDFParse } from 'pdf-parse';
import { createHousekeepingRepo } from '../housekeeping/repo.js';
import { createHousekeeping } from '../housekeeping/service.js';
import { ADMIN } from '../testing/principals.js';
import { FakeClock } from '../lib/clock.js';
import { createSecretBox } from '../lib/secret-box.js';
import { createMailer } from '../mail/smtp-mailer.js';
import { createAlertRetentionRepo } from '../settings/alert-retention/repo.js';
import { createAlertRetentionService } from '../settings/alert-retention/service.js';
import { createSmtpSettingsService } from '../settings/smtp/service.js';
import { createCustomer } from '../testing/accounts.js';
import { auditTrailOn } from '../testing/audit.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { captureLogger } from '../testing/logger.js';
import { freePort } from '../testing/net.js';
import { smtpSettingsOf, startSmtpSink, type SmtpSink } from '../testing/smtp-sink.js';
import { createMonthlyReports } from './monthly.js';
import { createReportsRepo } from './repo.js';
import { createReportsService } from './service.js';

const smtpOn = (port: number) => ({ ...smtpSettingsOf({ port }), encryption: 'none' as const });

describe('monthly report e-mail', () => {
  let db: TestDatabase;
  let sink: SmtpSink;
  const clock = new FakeClock(new Date('2026-10-31T22:30:00Z')); // 23:30 on 31 October in Berlin
  const logs = captureLogger();
  let berlin: number;
  let london: number;

  /** The services as a start of the app builds them: a second call is a restart. */
  function boot() {
    const audit = auditTrailOn(db.knex, clock);
    const smtp = createSmtpSettingsService({
      db: db.knex,
      audit,
      box: createSecretBox({ settingsEncryptionKey: null, authSecret: 'x'.repeat(40) }, logs.log),
    });
    const repo = createReportsRepo(db.knex);
    const retention = createAlertRetentionService({ repo: createAlertRetentionRepo(db.knex), clock, audit });
    const reports = createReportsService({ repo, clock, retention });
    const monthly = createMonthlyReports({
      repo,
      reports,
      mailer: createMailer({ smtp, log: logs.log }),
      audit,
      clock,
      log: logs.log,
      authUrl: 'https://argus.example.com',
    });
    const housekeeping = createHousekeeping({
      repo: createHousekeepingRepo(db.knex),
      clock,
      log: logs.log,
      monthlyReports: monthly,
    });
    return { smtp, monthly, housekeeping };
  }

  const deliveries = () => db.knex('report_deliveries').orderBy(['customer_id', 'month']);

  before(async () => {
    db = await createTestDatabase();
    sink = await startSmtpSink();
    berlin = await createCustomer(db.knex, 'Berlin Bakery');
    london = await createCustomer(db.knex, 'London Lettings');
    await db.knex('customers').where({ id: berlin }).update({ time_zone: 'Europe/Berlin' });
    await db.knex('customers').where({ id: london }).update({ time_zone: 'Europe/London' });
    const [system] = await db
      .knex('systems')
      .insert({ customer_id: berlin, name: 'oven-1', created_at: '2026-01-01T00:00Z' })
      .returning<{ id: number }[]>('id');
    await db.knex('alerts').insert({
      rule_key: 'system.offline',
      rule_kind: 'offline',
      system_id: (system as { id: number }).id,
      customer_id: berlin,
      severity: 'CRITICAL',
      state: 'resolved',
      started_at: '2026-10-10T10:00:00Z',
      resolved_at: '2026-10-10T11:00:00Z',
    });
    const { monthly } = boot();
    await monthly.updateSettings({ type: 'system', id: null, name: 'test', address: null }, ADMIN, berlin, {
      enabled: true,
      recipients: ['owner@bakery.example', 'it@bakery.example'],
    });
    await monthly.updateSettings({ type: 'system', id: null, name: 'test', address: null }, ADMIN, london, {
      enabled: true,
      recipients: ['lettings@london.example'],
    });
  });
  after(async () => {
    await sink.close();
    await db.drop();
  });

  it('sends nothing and claims nothing while SMTP is off', async () => {
    clock.set(new Date('2026-10-31T23:30:00Z')); // 00:30 on 1 November in Berlin
    await boot().housekeeping.runOnce();
    assert.equal(sink.mails.length, 0);
    assert.deepEqual(await deliveries(), []);
  });

  it('sends nothing before local midnight of the 1st', async () => {
    const { smtp, housekeeping } = boot();
    await smtp.update(smtpOn(sink.port));
    clock.set(new Date('2026-10-31T22:59:00Z')); // 23:59 in Berlin, 22:59 in London
    await housekeeping.runOnce();
    assert.equal(sink.mails.length, 0);
  });

  it("sends last month's PDF on the 1st in the customer's zone, to every address, once across restarts", async () => {
    clock.set(new Date('2026-10-31T23:30:00Z')); // Berlin: 1 November 00:30; London: still 31 October 23:30
    await boot().housekeeping.runOnce();
    const mail = await sink.nthMail(1);
    assert.deepEqual(mail.to.sort(), ['it@bakery.example', 'owner@bakery.example']);
    assert.equal(mail.subject, 'Availability report October 2026: Berlin Bakery');
    const parsed = await simpleParser(mail.raw);
    assert.match(
      parsed.text ?? '',
      /Availability of Berlin Bakery, 2026-10-01 to 2026-10-31 \(Europe\/Berlin\): 99\.865 %/,
    );
    assert.match(parsed.text ?? '', /Counted as down: a system offline\. Other alerts are not downtime\./);
    const attachment = parsed.attachments[0];
    assert.equal(attachment?.contentType, 'application/pdf');
    assert.equal(attachment?.filename, 'availability-Berlin-Bakery-2026-10-01-2026-10-31.pdf');
    const parser = new PDFParse({ data: attachment.content });
    const { text } = await parser.getText();
    await parser.destroy();
    assert.ok(
      text.includes('Berlin Bakery') && text.includes('2026-10-01 to 2026-10-31') && text.includes('oven-1'),
      text,
    );

    // a restart and more hourly runs on the same day: nothing twice
    clock.advance(3_600_000);
    await boot().housekeeping.runOnce();
    clock.advance(3_600_000);
    await boot().housekeeping.runOnce();
    const sent = sink.mails.filter((m) => m.subject.includes('Berlin Bakery'));
    assert.equal(sent.length, 1);
    // London's 1 November began at 00:00 UTC
    assert.equal(sink.mails.filter((m) => m.subject.includes('London Lettings')).length, 1);
    const rows = await deliveries();
    assert.deepEqual(
      rows.map((r) => [r.customer_id, r.month, r.status, r.attempts]),
      [
        [berlin, '2026-10', 'sent', 1],
        [london, '2026-10', 'sent', 1],
      ],
    );
    const audited = await db.knex('audit_log').where({ action: 'report.monthly.sent' }).orderBy('id');
    assert.equal(audited.length, 2);
    assert.equal(audited[0].actor_type, 'system');
    assert.equal(Number(audited[0].customer_id), berlin);
    assert.equal(audited[0].after.month, '2026-10');
  });

  it('retries a failed send the next hour, records the failure, and sends nothing after the 3rd day', async () => {
    const { smtp } = boot();
    const closedPort = await freePort();
    await smtp.update(smtpOn(closedPort));
    clock.set(new Date('2026-11-30T23:10:00Z')); // Berlin: 1 December 00:10
    const before = sink.mails.length;
    await boot().housekeeping.runOnce();
    const failed = await db.knex('report_deliveries').where({ customer_id: berlin, month: '2026-11' }).first();
    assert.equal(failed.status, 'failed');
    assert.equal(failed.attempts, 1);
    assert.match(failed.last_error, /Could not talk to the SMTP server/);
    assert.equal(
      await db
        .knex('audit_log')
        .where({ action: 'report.monthly.failed' })
        .count()
        .first()
        .then((r) => Number(r?.count)),
      1,
    );

    await smtp.update(smtpOn(sink.port));
    clock.advance(3_600_000);
    await boot().housekeeping.runOnce();
    const sent = await db.knex('report_deliveries').where({ customer_id: berlin, month: '2026-11' }).first();
    assert.equal(sent.status, 'sent');
    assert.equal(sent.attempts, 2);
    assert.ok(sink.mails.slice(before).some((m) => m.subject === 'Availability report November 2026: Berlin Bakery'));

    // a customer who opts in on the 4th gets nothing until the next 1st
    const late = await createCustomer(db.knex, 'Late Starter');
    await boot().monthly.updateSettings({ type: 'system', id: null, name: 'test', address: null }, ADMIN, late, {
      enabled: true,
      recipients: ['late@example.com'],
    });
    clock.set(new Date('2026-12-04T09:00:00Z'));
    await boot().housekeeping.runOnce();
    assert.equal(await db.knex('report_deliveries').where({ customer_id: late }).first(), undefined);
  });
});
