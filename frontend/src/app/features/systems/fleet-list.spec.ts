import { HttpRequest } from '@angular/common/http';
import { HttpTestingController } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';

import { AuthService } from '@console/core/auth';
import { userBody } from '@console/core/auth-testing';
import { LIVE_SOCKET } from '@console/core/live-socket';
import { fakeSockets, FakeSocket } from '@console/core/live-testing';
import { provideForTests } from '@console/testing';
import { SYSTEMS_PAGE_URL, SystemSummary } from '@console/shared/systems/systems-api';
import { COUNTS_EVERY_MS, FleetList, LIVE_COALESCE_MS, PAGE_ROWS, WHOLE_FLEET_MAX } from './fleet-list';
import { pageBody, systemBody } from '@console/shared/systems/systems-testing';

describe('FleetList: the systems page at any fleet size', () => {
  let sockets: FakeSocket[];
  let http: HttpTestingController;
  let fleet: FleetList;

  const acme = { id: 10, name: 'Acme' };
  const host = (id: number, overrides: Partial<SystemSummary> = {}) =>
    systemBody({ id, name: `host-${String(id).padStart(5, '0')}`, customer: acme, ...overrides });
  const pageRequest = (match: (params: URLSearchParams) => boolean = () => true) =>
    http.expectOne(
      (req: HttpRequest<unknown>) => req.url === SYSTEMS_PAGE_URL && match(new URLSearchParams(req.params.toString())),
    );
  const topics = () => (sockets[0]?.subs() ?? []).map((frame) => frame['topic']);
  const sidOf = (topic: string) => sockets[0].subs().find((frame) => frame['topic'] === topic)?.['sid'];

  beforeEach(() => {
    jasmine.clock().install();
    jasmine.clock().mockDate(new Date(Date.UTC(2026, 10, 26, 9, 0, 0)));
    const fake = fakeSockets();
    sockets = fake.sockets;
    TestBed.configureTestingModule({
      providers: [...provideForTests(), { provide: LIVE_SOCKET, useValue: fake.factory }, FleetList],
    });
    TestBed.inject(AuthService).updateUser(userBody());
    TestBed.tick();
    http = TestBed.inject(HttpTestingController);
    fleet = TestBed.inject(FleetList);
  });
  afterEach(() => {
    jasmine.clock().uninstall();
    http.verify();
  });

  describe(`a fleet of up to ${WHOLE_FLEET_MAX} systems`, () => {
    it('is held whole and follows the systems.list snapshot, with no request in 2 minutes of snapshots', () => {
      pageRequest((params) => params.get('limit') === String(WHOLE_FLEET_MAX)).flush(pageBody([host(1), host(2)]));
      expect(fleet.whole()).toBeTrue();
      sockets[0].accept();
      expect(topics()).toContain('systems.list');
      const sid = sidOf('systems.list');
      for (let i = 1; i <= 5; i += 1) {
        jasmine.clock().tick(25_000);
        const lastSeenAt = new Date(Date.UTC(2026, 10, 26, 9, 0, i * 25)).toISOString();
        sockets[0].receive({ t: 'snap', sid, rev: i, data: [host(1, { lastSeenAt, status: 'CRITICAL' }), host(2)] });
      }
      jasmine.clock().tick(LIVE_COALESCE_MS);
      http.expectNone(() => true);
      expect(fleet.rows()[0]).toEqual(
        jasmine.objectContaining({ status: 'CRITICAL', lastSeenAt: '2026-11-26T09:02:05.000Z' }),
      );
    });

    it('shows a burst of snapshots at most once per 500 ms (the first at once, the last after)', () => {
      pageRequest().flush(pageBody([host(1)]));
      sockets[0].accept();
      const sid = sidOf('systems.list');
      sockets[0].receive({ t: 'snap', sid, rev: 1, data: [host(1, { status: 'WARNING' })] });
      expect(fleet.rows()[0]?.status).toBe('WARNING');
      sockets[0].receive({ t: 'snap', sid, rev: 2, data: [host(1, { status: 'CRITICAL' })] });
      sockets[0].receive({ t: 'snap', sid, rev: 3, data: [host(1, { status: 'OFFLINE' })] });
      expect(fleet.rows()[0]?.status).toBe('WARNING');
      jasmine.clock().tick(LIVE_COALESCE_MS);
      expect(fleet.rows()[0]?.status).toBe('OFFLINE');
    });
  });

  describe('a larger fleet', () => {
    const first = Array.from({ length: WHOLE_FLEET_MAX }, (_, i) => host(i + 1));

    beforeEach(() => {
      pageRequest().flush(pageBody(first, 'cursor-1', 10_000));
      sockets[0].accept();
    });

    it('never subscribes to the whole-list snapshot', () => {
      expect(fleet.whole()).toBeFalse();
      expect(fleet.total()).toBe(10_000);
      expect(topics()).not.toContain('systems.list');
      expect(topics()).toContain('changes');
    });

    it('loads the next page with the cursor, once, and appends it', () => {
      fleet.loadMore();
      fleet.loadMore();
      const next = Array.from({ length: PAGE_ROWS }, (_, i) => host(WHOLE_FLEET_MAX + i + 1));
      pageRequest((params) => params.get('cursor') === 'cursor-1' && params.get('limit') === String(PAGE_ROWS)).flush(
        pageBody(next, null, 10_000),
      );
      expect(fleet.rows().length).toBe(WHOLE_FLEET_MAX + PAGE_ROWS);
      expect(fleet.hasMore()).toBeFalse();
      fleet.loadMore();
      http.expectNone(SYSTEMS_PAGE_URL);
    });

    it('filters on the server and drops an answer to a filter typed over since', () => {
      fleet.setFilter({ text: 'web', status: null, sort: 'customer' });
      const stale = pageRequest((params) => params.get('q') === 'web');
      fleet.setFilter({ text: 'web-1', status: 'CRITICAL', sort: 'customer' });
      pageRequest((params) => params.get('q') === 'web-1' && params.get('status') === 'CRITICAL').flush(
        pageBody([host(7, { status: 'CRITICAL' })]),
      );
      stale.flush(pageBody([host(8)]));
      expect(fleet.rows().map((row) => row.id)).toEqual([7]);
    });

    it('asks the server for a figure order, highest first, and takes its rows in that order', () => {
      fleet.setFilter({ text: '', status: null, sort: 'disk' });
      pageRequest((params) => params.get('sort') === 'disk' && params.get('order') === 'desc').flush(
        pageBody([host(9, { usage: { cpu: 1, memory: 2, disk: 97, diskMount: '/' } }), host(2)]),
      );
      expect(fleet.rows().map((row) => row.id)).toEqual([9, 2]);
      fleet.setFilter({ text: '', status: null, sort: 'customer' });
      pageRequest((params) => !params.has('sort') && !params.has('order')).flush(pageBody([host(1)]));
      expect(fleet.rows().map((row) => row.id)).toEqual([1]);
    });

    it('fetches the held rows a `changes` message names, coalesced, and counts again at most every 5 s', () => {
      const sid = sidOf('changes');
      sockets[0].receive({ t: 'msg', sid, id: 'r-1', data: { topic: 'systems', ids: [3] } });
      // the first change goes at once
      pageRequest((params) => params.get('ids') === '3').flush(pageBody([host(3, { status: 'CRITICAL' })]));
      expect(fleet.rows()[2]?.status).toBe('CRITICAL');
      // the next ones within 500 ms wait and go together; a system not held here is not fetched
      sockets[0].receive({ t: 'msg', sid, id: 'r-2', data: { topic: 'systems', ids: [4, 9_999] } });
      sockets[0].receive({ t: 'msg', sid, id: 'r-3', data: { topic: 'systems', ids: [5] } });
      sockets[0].receive({ t: 'msg', sid, id: 'r-4', data: { topic: 'rules', ids: [6] } });
      http.expectNone((req) => req.params.has('ids'));
      jasmine.clock().tick(LIVE_COALESCE_MS);
      pageRequest((params) => params.get('ids') === '4,5').flush(pageBody([host(5, { status: 'OFFLINE' })]));
      expect(fleet.rows().find((row) => row.id === 5)?.status).toBe('OFFLINE');
      expect(fleet.rows().some((row) => row.id === 4))
        .withContext('asked for and not answered: gone')
        .toBeFalse();
      // counts: once now (the first change), then once at the end of the 5 s
      pageRequest((params) => params.get('limit') === '1').flush({ ...pageBody([]), total: 9_999 });
      expect(fleet.total()).toBe(9_999);
      jasmine.clock().tick(COUNTS_EVERY_MS);
      pageRequest((params) => params.get('limit') === '1').flush({ ...pageBody([]), total: 9_998 });
      expect(fleet.total()).toBe(9_998);
    });
  });
});
