import { HttpTestingController } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { Observable, Subscription } from 'rxjs';

import { AuthService } from '@console/core/auth';
import { userBody } from '@console/core/auth-testing';
import { configureLiveForTests, FakeSocket } from '@console/core/live-testing';
import { Refreshing } from '@console/core/refresh';
import { SYSTEM_LAST_SEEN_MS, systemUrl, SystemDetail, SystemsApi } from '@console/shared/systems/systems-api';
import { systemDetailBody } from '@console/shared/systems/systems-testing';

describe('SystemsApi on the live channel', () => {
  let sockets: FakeSocket[];
  let api: SystemsApi;
  let http: HttpTestingController;
  const subscriptions: Subscription[] = [];

  beforeEach(() => {
    sockets = configureLiveForTests();
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

  it("keeps a system page's open alerts and last seen current from its own row, not the fleet's snapshot", () => {
    jasmine.clock().install();
    try {
      const seen = watch<Refreshing<SystemDetail>>(api.system$(1));
      http.expectOne(systemUrl(1)).flush(systemDetailBody());
      sockets[0].accept();
      expect(sockets[0].subs().map((s) => s['topic']))
        .withContext('no whole-fleet snapshot for one system')
        .not.toContain('systems.list');
      const sid = sockets[0].subs().find((s) => s['topic'] === 'changes')?.['sid'];
      // an alert changed somewhere: the open alerts of this system may have, so its row is read again
      sockets[0].receive({ t: 'msg', sid, id: 'r-1', data: { topic: 'alerts', ids: [77] } });
      const openAlerts = { critical: 1, warning: 0, info: 0 };
      http.expectOne(systemUrl(1)).flush(systemDetailBody({ status: 'CRITICAL', openAlerts }));
      expect(seen.at(-1)).toEqual(jasmine.objectContaining({ state: 'ready' }));
      const afterAlert = seen.at(-1);
      expect(afterAlert?.state === 'ready' && afterAlert.value.openAlerts.critical).toBe(1);
      // no change announced: last seen still moves, read again every SYSTEM_LAST_SEEN_MS
      jasmine.clock().tick(SYSTEM_LAST_SEEN_MS - 1);
      http.expectNone(systemUrl(1));
      jasmine.clock().tick(1);
      const lastSeenAt = new Date(Date.now() + 60_000).toISOString();
      http.expectOne(systemUrl(1)).flush(systemDetailBody({ lastSeenAt }));
      const last = seen.at(-1);
      expect(last?.state === 'ready' && last.value.lastSeenAt).toBe(lastSeenAt);
    } finally {
      for (const subscription of subscriptions.splice(0)) subscription.unsubscribe();
      jasmine.clock().uninstall();
    }
  });
});
