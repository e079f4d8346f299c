import { HttpTestingController } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { Observable, Subscription } from 'rxjs';

import { AuthService } from '../../core/auth';
import { userBody } from '../../core/auth-testing';
import { LIVE_SOCKET } from '../../core/live-socket';
import { fakeSockets, FakeSocket } from '../../core/live-testing';
import { Refreshing } from '../../core/refresh';
import { provideForTests } from '../../testing';
import { systemUrl, SystemDetail, SystemsApi } from '../../shared/systems/systems-api';
import { systemBody, systemDetailBody } from '../../shared/systems/systems-testing';

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
