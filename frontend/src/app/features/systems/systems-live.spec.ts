import { HttpTestingController } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { Observable, Subscription } from 'rxjs';

import { AuthService } from '../../core/auth';
import { userBody } from '../../core/auth-testing';
import { LIVE_SOCKET } from '../../core/live-socket';
import { fakeSockets, FakeSocket } from '../../core/live-testing';
import { Refreshing } from '../../core/refresh';
import { provideForTests } from '../../testing';
import { SYSTEMS_URL, systemUrl, SystemDetail, SystemsApi, SystemSummary } from '../../shared/systems/systems-api';
import { systemBody, systemDetailBody } from './systems-testing';

describe('SystemsApi on the live channel', () => {
  let sockets: FakeSocket[];
  let api: SystemsApi;
  let http: HttpTestingController;
  const subscriptions: Subscription[] = [];

  beforeEach(() => {
    const fake = fakeSockets();
    sockets = fake.sockets;
    TestBed.configureTestingModule({
      providers: [...provideForTests(), { provide: LIVE_SOCKET, useValue: fake.factory }],
    });
    TestBed.inject(AuthService).updateUser(userBody());
    TestBed.tick();
    api = TestBed.inject(SystemsApi);
    http = TestBed.inject(HttpTestingController);
  });
  afterEach(() => {
    for (const subscription of subscriptions.splice(0)) subscription.unsubscribe();
  });

  function watch<T>(source: Observable<T>): T[] {
    const seen: T[] = [];
    subscriptions.push(source.subscribe((state) => seen.push(state)));
    return seen;
  }

  function snapSid(): unknown {
    sockets[0].accept();
    return sockets[0].subs().find((s) => s['topic'] === 'systems.list')?.['sid'];
  }

  it('shows the list, then every systems.list snapshot without a request', () => {
    const seen = watch<Refreshing<SystemSummary[]>>(api.systems$);
    http.expectOne(SYSTEMS_URL).flush([systemBody()]);
    const sid = snapSid();
    sockets[0].receive({ t: 'snap', sid, rev: 3, data: [systemBody({ status: 'CRITICAL' })] });
    const last = seen.at(-1);
    expect(last?.state === 'ready' && last.value[0].status).toBe('CRITICAL');
  });

  it('makes no request in 2 minutes of snapshots that only move last seen (the rows update in place)', () => {
    jasmine.clock().install();
    try {
      const seen = watch<Refreshing<SystemSummary[]>>(api.systems$);
      http.expectOne(SYSTEMS_URL).flush([systemBody()]);
      const sid = snapSid();
      for (let i = 1; i <= 5; i += 1) {
        jasmine.clock().tick(25_000);
        const lastSeenAt = new Date(Date.UTC(2026, 10, 25, 10, 0, i * 25)).toISOString();
        sockets[0].receive({ t: 'snap', sid, rev: i, data: [systemBody({ lastSeenAt })] });
      }
      http.expectNone(() => true);
      const last = seen.at(-1);
      expect(last?.state === 'ready' && last.value[0].lastSeenAt).toBe('2026-11-25T10:02:05.000Z');
    } finally {
      jasmine.clock().uninstall();
    }
  });

  it('reloads a system page when the server names that system in `changes`, and only then', () => {
    watch<Refreshing<SystemDetail>>(api.system$(1));
    http.expectOne(systemUrl(1)).flush(systemDetailBody());
    sockets[0].accept();
    const sid = sockets[0].subs().find((s) => s['topic'] === 'changes')?.['sid'];
    expect(sid).withContext('subscribed to changes').toBeDefined();
    sockets[0].receive({ t: 'msg', sid, id: 'r-1', data: { topic: 'systems', ids: [2] } });
    sockets[0].receive({ t: 'msg', sid, id: 'r-2', data: { topic: 'rules', ids: [1] } });
    http.expectNone(systemUrl(1));
    sockets[0].receive({ t: 'msg', sid, id: 'r-3', data: { topic: 'systems', ids: [1] } });
    http.expectOne(systemUrl(1)).flush(systemDetailBody());
  });

  it("keeps a system page's status, last seen and open alerts current from the snapshot", () => {
    const seen = watch<Refreshing<SystemDetail>>(api.system$(1));
    http.expectOne(systemUrl(1)).flush(systemDetailBody());
    const sid = snapSid();
    const lastSeenAt = new Date(Date.now() + 60_000).toISOString();
    sockets[0].receive({
      t: 'snap',
      sid,
      rev: 1,
      data: [
        systemBody({ id: 2, status: 'OFFLINE' }),
        systemBody({ status: 'CRITICAL', lastSeenAt, openAlerts: { critical: 1, warning: 0, info: 0 } }),
      ],
    });
    const last = seen.at(-1);
    expect(last?.state).toBe('ready');
    if (last?.state !== 'ready') return;
    expect(last.value.status).toBe('CRITICAL');
    expect(last.value.lastSeenAt).toBe(lastSeenAt);
    expect(last.value.openAlerts.critical).toBe(1);
    expect(last.value.kernel).toBe('6.8.0-45');
  });
});
