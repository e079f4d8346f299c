import { HttpTestingController } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { Observable, Subscription } from 'rxjs';

import { AuthService } from './core/auth';
import { userBody } from './core/auth-testing';
import { LiveService } from './core/live';
import { configureLiveForTests, FakeSocket } from './core/live-testing';
import { LIVE_REFRESH_MIN_MS, LiveTopic } from './core/refresh';
import { MaintenanceApi, WINDOWS_URL } from './features/maintenance/maintenance-api';
import { UsersApi, USERS_URL } from './features/users/users-api';
import { AGENT_SETTINGS_URL, AgentSettingsApi } from './shared/agent-settings/agent-settings-api';
import { AlertsApi, ALERTS_URL } from './shared/alerts/alerts-api';
import { CLUSTERS_URL, CustomersApi, CUSTOMERS_URL } from './shared/customers/customers-api';
import {
  CHANNELS_URL,
  customerPolicyUrl,
  NotificationsApi,
  POLICIES_URL,
} from './shared/notifications/notifications-api';
import { incidentUrl, IncidentsApi, INCIDENTS_URL } from './features/alerts/incidents-api';
import { ALERT_RULES_URL, EVENT_RULES_URL, RulesApi } from './shared/rules/rules-api';

/** Each data service reloads on the `changes` topics of what it shows, and on no other. */
describe('what each console data service reloads on', () => {
  let sockets: FakeSocket[];
  let http: HttpTestingController;
  const subscriptions: Subscription[] = [];

  beforeEach(() => {
    jasmine.clock().install();
    sockets = configureLiveForTests();
    TestBed.inject(AuthService).updateUser(userBody());
    TestBed.tick();
    TestBed.inject(LiveService); // the shell creates it in the app (its open-alerts counter)
    http = TestBed.inject(HttpTestingController);
  });
  afterEach(() => {
    for (const subscription of subscriptions.splice(0)) subscription.unsubscribe();
    jasmine.clock().uninstall();
  });

  const ALL: LiveTopic[] = [
    'rules',
    'maintenance',
    'customers',
    'users',
    'agent-settings',
    'systems',
    'alerts',
    'channels',
    'policies',
    'incidents',
  ];

  /** `alsoOn`: further topics that reload it too. */
  const cases: {
    name: string;
    topic: LiveTopic;
    alsoOn?: LiveTopic[];
    stream: () => Observable<unknown>;
    urls: string[];
  }[] = [
    {
      name: 'the rules',
      topic: 'rules',
      stream: () => TestBed.inject(RulesApi).rules$,
      urls: [ALERT_RULES_URL, EVENT_RULES_URL],
    },
    {
      name: 'the maintenance windows',
      topic: 'maintenance',
      stream: () => TestBed.inject(MaintenanceApi).windows$,
      urls: [WINDOWS_URL],
    },
    {
      name: 'customers and clusters',
      topic: 'customers',
      stream: () => TestBed.inject(CustomersApi).fleet$,
      urls: [CUSTOMERS_URL, CLUSTERS_URL],
    },
    { name: 'the users', topic: 'users', stream: () => TestBed.inject(UsersApi).users$, urls: [USERS_URL] },
    {
      name: 'agent settings',
      topic: 'agent-settings',
      stream: () => TestBed.inject(AgentSettingsApi).listing$({ type: 'cluster', id: 3 }),
      urls: [AGENT_SETTINGS_URL],
    },
    {
      name: 'the alerts',
      topic: 'alerts',
      stream: () => TestBed.inject(AlertsApi).alerts$({ state: 'open' }),
      urls: [ALERTS_URL],
    },
    {
      name: 'the notification channels',
      topic: 'channels',
      stream: () => TestBed.inject(NotificationsApi).channels$,
      urls: [CHANNELS_URL],
    },
    {
      name: 'the routing policies',
      topic: 'policies',
      stream: () => TestBed.inject(NotificationsApi).policies$,
      urls: [POLICIES_URL],
    },
    {
      name: "a customer's routing policy",
      topic: 'policies',
      stream: () => TestBed.inject(NotificationsApi).customerPolicy$(10),
      urls: [customerPolicyUrl(10)],
    },
    {
      name: 'the incidents (alerts join them)',
      topic: 'incidents',
      alsoOn: ['alerts'],
      stream: () => TestBed.inject(IncidentsApi).incidents$({ state: 'open' }),
      urls: [INCIDENTS_URL],
    },
    {
      name: 'one incident',
      topic: 'incidents',
      alsoOn: ['alerts'],
      stream: () => TestBed.inject(IncidentsApi).incident$(3),
      urls: [incidentUrl(3)],
    },
  ];

  function flushAll(urls: string[]): void {
    for (const url of urls) {
      for (const request of http.match((r) => r.url === url)) request.flush([]);
    }
  }

  for (const { name, topic, alsoOn = [], stream, urls } of cases) {
    const topics = [topic, ...alsoOn];
    it(`${name}: on "${topics.join('" and "')}" only`, () => {
      subscriptions.push(stream().subscribe());
      flushAll(urls);
      sockets[0].accept();
      const sid = sockets[0].subs().find((s) => s['topic'] === 'changes')?.['sid'];
      expect(sid).withContext('subscribed to changes').toBeDefined();
      let seq = 0;
      for (const other of ALL.filter((t) => !topics.includes(t))) {
        sockets[0].receive({ t: 'msg', sid, id: `r-${++seq}`, data: { topic: other, ids: [1] } });
        jasmine.clock().tick(LIVE_REFRESH_MIN_MS);
      }
      http.expectNone(() => true);
      for (const wanted of topics) {
        sockets[0].receive({ t: 'msg', sid, id: `r-${++seq}`, data: { topic: wanted, ids: [1] } });
        for (const url of urls)
          expect(http.match((r) => r.url === url).length)
            .withContext(`${url} on "${wanted}"`)
            .toBe(1);
        jasmine.clock().tick(LIVE_REFRESH_MIN_MS);
      }
    });
  }
});
