import { HttpTestingController, TestRequest } from '@angular/common/http/testing';
import { ComponentFixture, TestBed } from '@angular/core/testing';

import { AuthService } from '@console/core/auth';
import { userBody } from '@console/core/auth-testing';
import { configureLiveForTests, FakeSocket } from '@console/core/live-testing';
import { ALERTS_URL } from '@console/shared/alerts/alerts-api';
import { checkUrl } from '@console/shared/checks/checks-api';
import { checkBody, checkResultBody } from '@console/shared/checks/checks-testing';
import { systemUrl } from '@console/shared/systems/systems-api';
import { settle } from '@console/testing';
import { CheckPage } from './check-page';

const MINUTE = 60_000;

/**
 * A check's page on the live channel: each run the server stores comes as a report of the check's
 * system (`system:<id>`), which draws the new point on its charts at once and reads the check again
 * for the newest result of each place, without a reload of the page. A change of an agent it runs
 * from (deleted, renamed) reads it again too.
 */
describe('CheckPage on the live channel', () => {
  let sockets: FakeSocket[];
  let fixture: ComponentFixture<CheckPage>;
  let http: HttpTestingController;
  const server = checkBody({ id: 7, name: 'Shop front', customerId: 10 });
  const edge = {
    location: 'system:12',
    name: 'edge-01',
    state: 'PENDING' as const,
    stateSince: null,
    failures: 0,
    lastResult: null,
    stale: false,
  };
  /** Run from the server and from the agent of system 12 (no run of its own yet). */
  const shop = { ...server, locations: ['argus', 'system:12'], results: [...server.results, edge] };
  const responseSeries = { name: 'check.response_ms', instance: 'argus' };

  /** The one request matching `match`, once the page sent it. */
  async function request(match: (url: string) => boolean): Promise<TestRequest> {
    for (let turn = 0; turn < 50; turn++) {
      await settle(fixture);
      const found = http.match((req) => match(req.url));
      if (found.length === 1) return found[0];
      if (found.length > 1) throw new Error(`Expected one request, got ${found.length}`);
      await new Promise((resolve) => setTimeout(resolve));
    }
    throw new Error('No such request');
  }

  beforeEach(async () => {
    sockets = configureLiveForTests();
    TestBed.inject(AuthService).updateUser(userBody());
    http = TestBed.inject(HttpTestingController);
    fixture = TestBed.createComponent(CheckPage);
    fixture.componentRef.setInput('id', '7');
    (await request((url) => url === checkUrl(7))).flush(shop);
    (await request((url) => url === `${systemUrl(7)}/series`)).flush([responseSeries]);
    (await request((url) => url === ALERTS_URL)).flush([]);
    const charts = await request((url) => url === `${systemUrl(7)}/metrics/batch`);
    const to = Date.parse(charts.request.params.get('to')!);
    charts.flush({
      source: 'raw',
      bucketSeconds: 60,
      series: [{ ...responseSeries, points: [[to - 2 * MINUTE, 48, 48, 48]] }],
    });
    await settle(fixture);
    sockets[0].accept();
    await settle(fixture);
  });

  afterEach(() => http.verify());

  const page = (): HTMLElement => fixture.nativeElement;
  const responseLegend = () =>
    page().querySelector('argus-family-chart[data-chart="Response time"] .metric-chart__value')?.textContent?.trim();
  const argusRow = () =>
    Array.from(page().querySelectorAll('tr[data-location="argus"] td'), (cell) => cell.textContent?.trim());

  it('draws a new run on the charts and shows it as the newest result, on one subscription', async () => {
    expect(responseLegend()).toBe('48 ms');
    expect(argusRow().slice(0, 3)).toEqual(['Argus', 'Up', 'HTTP 200 · 48 ms']);
    const subs = sockets[0].subs().filter((s) => s['topic'] === 'system:7');
    expect(subs.length).withContext('the charts and the check share the topic').toBe(1);

    const at = new Date().toISOString();
    sockets[0].receive({
      t: 'msg',
      sid: subs[0]['sid'],
      id: 'r-1',
      data: {
        ts: at,
        metrics: [
          { name: 'check.down', instance: '', value: 0 },
          { name: 'check.up', instance: 'argus', value: 1 },
          { name: 'check.response_ms', instance: 'argus', value: 95 },
        ],
      },
    });
    await settle(fixture);
    expect(responseLegend()).withContext('the point drawn from the message itself').toBe('95 ms');

    const newest = checkResultBody({ at, responseMs: 95 });
    const argus = { ...server.results[0], lastResult: newest };
    (await request((url) => url === checkUrl(7))).flush({ ...shop, lastResult: newest, results: [argus, edge] });
    await settle(fixture);
    expect(argusRow().slice(0, 3)).toEqual(['Argus', 'Up', 'HTTP 200 · 95 ms']);
    http.expectNone(`${systemUrl(7)}/metrics/batch`);
  });

  it('reads the check again when an agent it runs from changes, and not for another system', async () => {
    const locations = () =>
      Array.from(page().querySelectorAll('tr[data-location]'), (row) => row.getAttribute('data-location'));
    expect(locations()).toEqual(['argus', 'system:12']);
    const sid = sockets[0].subs().find((s) => s['topic'] === 'changes')?.['sid'];
    sockets[0].receive({ t: 'msg', sid, id: 'r-1', data: { topic: 'systems', ids: [13] } });
    await settle(fixture);
    http.expectNone(checkUrl(7));

    // the agent of system 12 deleted: the server answers the check without its place
    sockets[0].receive({ t: 'msg', sid, id: 'r-2', data: { topic: 'systems', ids: [12] } });
    (await request((url) => url === checkUrl(7))).flush({ ...server, locations: ['argus'] });
    await settle(fixture);
    expect(locations()).toEqual(['argus']);
  });
});
