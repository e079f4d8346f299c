import { HttpTestingController } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { RouterTestingHarness } from '@angular/router/testing';

import { AuthService, User } from '@console/core/auth';
import { userBody } from '@console/core/auth-testing';
import { buttonByText, nextRequest, provideForTests } from '@console/testing';
import { shortTime } from '@console/ui/time-ago';
import { AlertPage } from './alert-page';
import { Alert, ALERTS_URL } from '@console/shared/alerts/alerts-api';
import { alertBody } from '@console/shared/alerts/alerts-testing';
import { alertNotificationsUrl, DeliveryLogEntry } from '@console/shared/notifications/notifications-api';
import { deliveryBody } from '@console/shared/notifications/notifications-testing';
import { incidentUrl } from './incidents-api';
import { incidentAlertBody, incidentBody } from './incidents-testing';

describe('AlertPage', () => {
  let http: HttpTestingController;
  let harness: RouterTestingHarness;
  afterEach(() => http?.verify());

  async function render(user: User, alert: Alert, deliveries: DeliveryLogEntry[] = []): Promise<HTMLElement> {
    TestBed.configureTestingModule({ providers: provideForTests([{ path: 'alerts/:id', component: AlertPage }]) });
    http = TestBed.inject(HttpTestingController);
    TestBed.inject(AuthService).updateUser(user);
    harness = await RouterTestingHarness.create();
    const navigation = harness.navigateByUrl(`/alerts/${alert.id}`);
    (await nextRequest(http, { method: 'GET', url: `${ALERTS_URL}/${alert.id}` })).flush(alert);
    (await nextRequest(http, { method: 'GET', url: alertNotificationsUrl(alert.id) })).flush(deliveries);
    await navigation;
    await stable();
    return harness.routeNativeElement!;
  }

  async function stable(): Promise<void> {
    harness.detectChanges();
    await harness.fixture.whenStable();
  }

  const entries = (page: HTMLElement) =>
    Array.from(page.querySelectorAll<HTMLElement>('[data-testid="timeline-entry"]'), (li) => ({
      kind: li.dataset['kind'],
      text: li.textContent?.replace(/\s+/g, ' ').trim() ?? '',
    }));

  it('shows the alert of the e-mail link /alerts/:id with its system and state', async () => {
    const page = await render(
      userBody({ role: 'VIEWER', customerIds: [10] }),
      alertBody({
        id: 42,
        acknowledged: true,
        acknowledgedAt: new Date().toISOString(),
        acknowledgedBy: { id: 2, name: 'Grace' },
      }),
    );

    expect(page.querySelector('h1')?.textContent).toContain('cpu.high');
    expect(page.querySelector('[data-testid="state"]')?.textContent).toContain('Open, acknowledged');
    expect(page.querySelector('a[href="/systems/5"]')?.textContent).toContain('web-01');
    expect(page.textContent).toContain('acknowledged by Grace');
    expect(page.querySelectorAll('button').length).toBe(0);
    expect(page.querySelector('[data-testid="no-deliveries"]')).not.toBeNull();
    expect(page.querySelector('[data-testid="incident"]')).withContext('not part of an incident').toBeNull();
  });

  it('says which cluster incident an offline alert is part of', async () => {
    TestBed.configureTestingModule({ providers: provideForTests([{ path: 'alerts/:id', component: AlertPage }]) });
    http = TestBed.inject(HttpTestingController);
    TestBed.inject(AuthService).updateUser(userBody());
    harness = await RouterTestingHarness.create();
    const navigation = harness.navigateByUrl('/alerts/11');
    (await nextRequest(http, { method: 'GET', url: `${ALERTS_URL}/11` })).flush(
      alertBody({ id: 11, ruleKey: 'system.offline', incidentId: 3 }),
    );
    (await nextRequest(http, { method: 'GET', url: alertNotificationsUrl(11) })).flush([]);
    await navigation;
    await stable();
    const page = harness.routeNativeElement!;
    expect(page.querySelector('[data-testid="incident"]')?.textContent).toContain('Part of incident: …');

    (await nextRequest(http, { method: 'GET', url: incidentUrl(3) })).flush(
      incidentBody({
        id: 3,
        alerts: [
          incidentAlertBody({ id: 11, systemId: 5, systemName: 'web-01' }),
          incidentAlertBody({ id: 12, systemId: 6, systemName: 'web-02' }),
          incidentAlertBody({ id: 13, systemId: 7, systemName: 'web-03' }),
          incidentAlertBody({ id: 14, systemId: 8, systemName: 'web-04' }),
        ],
      }),
    );
    await stable();
    expect(page.querySelector('[data-testid="incident"]')?.textContent?.trim()).toBe(
      'Part of incident: Site down: Berlin (4 systems)',
    );
  });

  it('tells the story of the alert: raised, each delivery, acknowledged until, resolved', async () => {
    const t = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
    const until = new Date(Date.now() + 3_600_000).toISOString();
    const page = await render(
      userBody(),
      alertBody({
        id: 7,
        startedAt: t(10),
        acknowledged: true,
        acknowledgedAt: t(5),
        acknowledgedBy: { id: 2, name: 'Grace' },
        ackUntil: until,
        state: 'resolved',
        resolvedAt: t(1),
      }),
      [
        deliveryBody({ id: 1, createdAt: t(10), sentAt: t(10) }),
        deliveryBody({
          id: 2,
          channel: { id: null, name: 'Old hook', type: 'webhook' },
          status: 'failed',
          attempts: 6,
          lastStatus: 503,
          lastError: 'Service Unavailable',
          createdAt: t(10),
          sentAt: null,
          attemptLog: [500, 500, 503, 503, 503, 503].map((status) => ({
            at: t(9),
            status,
            error: 'Service Unavailable',
          })),
        }),
        deliveryBody({
          id: 3,
          channel: { id: 5, name: 'Accounts who may see it', type: 'email' },
          event: 'acknowledged',
          recipient: 'grace@example.com',
          lastStatus: null,
          createdAt: t(5),
        }),
      ],
    );

    expect(page.querySelector('h2')?.textContent).toBe('Notifications');
    const story = entries(page);
    expect(story.map((e) => e.kind)).toEqual([
      'raised',
      'delivery',
      'delivery',
      'acknowledged',
      'delivery',
      'resolved',
    ]);
    expect(story[1].text).toContain('Raised to Ops Slack');
    expect(story[1].text).toContain('Sent');
    expect(story[1].text).toContain('HTTP 200');
    expect(story[2].text).toContain('Failed');
    expect(story[2].text).toContain('6 attempts (500, 500, 503, 503, 503, 503) · HTTP 503 · Service Unavailable');
    expect(story[3].text).toContain(`Acknowledged by Grace until ${shortTime(until)}`);
    expect(story[4].text).toContain('Acknowledged to Accounts who may see it');
    expect(story[4].text).toContain('grace@example.com');
    expect(page.querySelector('[data-testid="state"]')?.textContent).toContain('Resolved');
  });

  it('acknowledges for a while and says until when', async () => {
    const alert = alertBody({ id: 7 });
    const page = await render(userBody({ role: 'OPERATOR', customerIds: [10] }), alert);

    buttonByText('Acknowledge', page).click();
    await stable();
    await stable();
    const dialog = document.querySelector('mat-dialog-container') as HTMLElement;
    expect(dialog.querySelector('[data-testid="ack-for"] .mat-mdc-select-value')?.textContent?.trim()).toBe(
      'Until it resolves',
    );
    (dialog.querySelector('[data-testid="ack-for"] .mat-mdc-select-trigger') as HTMLElement).click();
    await stable();
    const options = Array.from(document.querySelectorAll<HTMLElement>('mat-option'));
    expect(options.map((o) => o.textContent?.trim())).toEqual([
      'Until it resolves',
      '1 hour',
      '4 hours',
      '24 hours',
      '7 days',
    ]);
    options[2].click();
    await stable();
    buttonByText('Acknowledge', dialog).click();

    const ack = await nextRequest(http, { method: 'POST', url: `${ALERTS_URL}/7/ack` });
    const body = ack.request.body as { note: string | null; until: string };
    expect(body.note).toBeNull();
    expect(Date.parse(body.until) - Date.now()).toBeGreaterThan(4 * 3_600_000 - 60_000);
    expect(Date.parse(body.until) - Date.now()).toBeLessThanOrEqual(4 * 3_600_000);
    const acknowledged = alertBody({
      id: 7,
      acknowledged: true,
      acknowledgedAt: new Date().toISOString(),
      acknowledgedBy: { id: 1, name: 'Ada' },
      ackUntil: body.until,
    });
    ack.flush(acknowledged);
    (await nextRequest(http, { method: 'GET', url: `${ALERTS_URL}/7` })).flush(acknowledged);
    (await nextRequest(http, { method: 'GET', url: alertNotificationsUrl(7) })).flush([
      deliveryBody({ event: 'acknowledged' }),
    ]);
    await stable();

    expect(page.querySelector('[data-testid="state"]')?.textContent).toContain(
      `Open, acknowledged until ${shortTime(body.until, 'UTC')}`,
    );
    expect(page.querySelector('[data-testid="ack-until"]')?.textContent).toContain(
      `until ${shortTime(body.until, 'UTC')}`,
    );
    expect(entries(page).some((e) => e.text.includes('Acknowledged to Ops Slack'))).toBeTrue();
  });

  it('shows why the notifications could not be read, and still the alert', async () => {
    TestBed.configureTestingModule({ providers: provideForTests([{ path: 'alerts/:id', component: AlertPage }]) });
    http = TestBed.inject(HttpTestingController);
    TestBed.inject(AuthService).updateUser(userBody());
    harness = await RouterTestingHarness.create();
    const navigation = harness.navigateByUrl('/alerts/8');
    (await nextRequest(http, { method: 'GET', url: `${ALERTS_URL}/8` })).flush(alertBody({ id: 8 }));
    (await nextRequest(http, { method: 'GET', url: alertNotificationsUrl(8) })).flush(
      { error: 'Delivery log unavailable', code: 'internal' },
      { status: 500, statusText: 'Server Error' },
    );
    await navigation;
    await stable();
    const page = harness.routeNativeElement!;

    expect(page.querySelector('[role="alert"]')?.textContent).toContain('Delivery log unavailable');
    expect(entries(page).map((e) => e.kind)).toEqual(['raised']);
  });
});
