import { TestBed } from '@angular/core/testing';
import { Router } from '@angular/router';
import { Subscription } from 'rxjs';

import { AuthService } from './auth';
import { userBody } from './auth-testing';
import { LiveService } from './live';
import { backoffMs, CLOSE_GOING_AWAY, CLOSE_RIGHTS_CHANGED, CLOSE_SIGNED_OUT } from './live-socket';
import { configureLiveForTests, FakeSocket } from './live-testing';

describe('LiveService', () => {
  let sockets: FakeSocket[];
  let live: LiveService;
  let auth: AuthService;
  const subscriptions: Subscription[] = [];

  beforeEach(() => {
    jasmine.clock().install();
    sockets = configureLiveForTests([]);
    auth = TestBed.inject(AuthService);
    auth.updateUser(userBody());
    live = TestBed.inject(LiveService);
    TestBed.tick(); // the sign-in effect
  });

  afterEach(() => {
    for (const subscription of subscriptions.splice(0)) subscription.unsubscribe();
    jasmine.clock().uninstall();
  });

  function watch<T>(source: ReturnType<LiveService['snapshot']>): T[] {
    const seen: T[] = [];
    subscriptions.push(source.subscribe((value) => seen.push(value as T)));
    return seen;
  }

  it('opens one socket for every topic, subscribes after ready, and shares a topic between subscribers', () => {
    const counts = watch<{ open: number }>(live.snapshot('alerts.counts'));
    const again = watch<{ open: number }>(live.snapshot('alerts.counts'));
    const alerts = watch<{ type: string }>(live.messages('alert'));
    expect(sockets.length).toBe(1);
    expect(sockets[0].url).toMatch(/^wss?:\/\/.+\/api\/live$/);
    expect(sockets[0].sent).toEqual([]);

    sockets[0].accept();
    const subs = sockets[0].subs();
    expect(subs.map((s) => s['topic'])).toEqual(['alerts.counts', 'alert']);
    expect(subs.every((s) => s['after'] === null)).toBeTrue();

    const countsSid = subs[0]['sid'];
    const alertSid = subs[1]['sid'];
    sockets[0].receive({ t: 'snap', sid: countsSid, rev: 1, data: { open: 2 } });
    sockets[0].receive({ t: 'msg', sid: alertSid, id: 'run-7', data: { type: 'raised' } });
    expect(counts).toEqual([{ open: 2 }]);
    expect(again).toEqual([{ open: 2 }]);
    expect(alerts).toEqual([{ type: 'raised' }]);
    // an older revision than the one shown is ignored
    sockets[0].receive({ t: 'snap', sid: countsSid, rev: 1, data: { open: 9 } });
    expect(counts).toEqual([{ open: 2 }]);
  });

  it('gives a late subscriber the current snapshot at once', () => {
    watch(live.snapshot('systems.list'));
    sockets[0].accept();
    const sid = sockets[0].subs()[0]['sid'];
    sockets[0].receive({ t: 'snap', sid, rev: 1, data: ['a'] });
    const late = watch<string[]>(live.snapshot('systems.list'));
    expect(late).toEqual([['a']]);
    expect(sockets[0].subs().length).toBe(1);
  });

  it('reconnects with backoff after a lost connection and resubscribes with after = the last id seen', () => {
    const alerts = watch<{ n: number }>(live.messages('alert'));
    sockets[0].accept();
    const sid = sockets[0].subs()[0]['sid'];
    sockets[0].receive({ t: 'msg', sid, id: 'run-41', data: { n: 1 } });
    sockets[0].receive({ t: 'msg', sid, id: 'run-42', data: { n: 2 } });

    sockets[0].drop(1006);
    expect(live.paused()).toBeTrue();
    expect(sockets.length).toBe(1);
    jasmine.clock().tick(backoffMs(0, () => 1));
    expect(sockets.length).toBe(2);

    sockets[1].accept();
    expect(live.paused()).toBeFalse();
    expect(sockets[1].subs()).toEqual([{ t: 'sub', sid, topic: 'alert', after: 'run-42' }]);
    sockets[1].receive({ t: 'msg', sid, id: 'run-43', data: { n: 3 } });
    expect(alerts.map((a) => a.n)).toEqual([1, 2, 3]);
  });

  it('backs off longer after each failed attempt, with jitter, up to 30 s', () => {
    expect(backoffMs(0, () => 1)).toBe(1000);
    expect(backoffMs(0, () => 0)).toBe(500);
    expect(backoffMs(3, () => 1)).toBe(8000);
    expect(backoffMs(10, () => 1)).toBe(30_000);

    watch(live.snapshot('systems.list'));
    sockets[0].drop(1006);
    jasmine.clock().tick(1000);
    expect(sockets.length).toBe(2);
    sockets[1].drop(1006); // never got ready: the next wait is longer
    jasmine.clock().tick(999);
    expect(sockets.length).toBe(2);
    jasmine.clock().tick(1001);
    expect(sockets.length).toBe(3);
  });

  it('reconnects after 4000 (rights changed) and 1001 (restart), taking a fresh snapshot', () => {
    const list = watch<number[]>(live.snapshot('systems.list'));
    sockets[0].accept();
    const sid = sockets[0].subs()[0]['sid'];
    sockets[0].receive({ t: 'snap', sid, rev: 5, data: [1, 2] });

    sockets[0].drop(CLOSE_RIGHTS_CHANGED);
    jasmine.clock().tick(1000);
    sockets[1].accept();
    expect(sockets[1].subs()).toEqual([{ t: 'sub', sid, topic: 'systems.list', after: null }]);
    // revisions start over on a new connection (or a new server run)
    sockets[1].receive({ t: 'snap', sid, rev: 1, data: [1] });
    expect(list).toEqual([[1, 2], [1]]);

    sockets[1].drop(CLOSE_GOING_AWAY);
    jasmine.clock().tick(1000);
    expect(sockets.length).toBe(3);
  });

  it('sends the console to sign-in on 4401 and does not reconnect', () => {
    const navigate = spyOn(TestBed.inject(Router), 'navigate').and.resolveTo(true);
    watch(live.snapshot('alerts.counts'));
    sockets[0].accept();
    sockets[0].drop(CLOSE_SIGNED_OUT);
    expect(auth.user()).toBeNull();
    expect(navigate).toHaveBeenCalledWith(['/login'], jasmine.objectContaining({ queryParams: jasmine.any(Object) }));
    jasmine.clock().tick(60_000);
    expect(sockets.length).toBe(1);
    expect(live.paused()).toBeFalse();
  });

  it('unsubscribes when the last subscriber leaves and closes the idle socket a little later', () => {
    const subscription = live.snapshot('alerts.counts').subscribe();
    sockets[0].accept();
    const sid = sockets[0].subs()[0]['sid'];
    subscription.unsubscribe();
    expect(sockets[0].sent.at(-1)).toEqual({ t: 'unsub', sid });
    expect(sockets[0].closedWith).toBeNull();
    jasmine.clock().tick(5_000);
    expect(sockets[0].closedWith).toBe(1000);
  });

  it('opens nothing while signed out, and closes on sign-out', () => {
    auth.sessionEnded();
    TestBed.tick();
    expect(sockets[0]).toBeUndefined();
    watch(live.snapshot('alerts.counts'));
    expect(sockets.length).toBe(0);
    auth.updateUser(userBody());
    TestBed.tick();
    expect(sockets.length).toBe(1);
    sockets[0].accept();
    auth.sessionEnded();
    TestBed.tick();
    expect(sockets[0].closedWith).toBe(1000);
  });
});
