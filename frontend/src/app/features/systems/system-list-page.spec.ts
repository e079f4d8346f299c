import { HttpTestingController } from '@angular/common/http/testing';
import { CdkVirtualScrollableElement } from '@angular/cdk/scrolling';
import { Component } from '@angular/core';
import { ComponentFixture, TestBed } from '@angular/core/testing';

import { AuthService } from '@console/core/auth';
import { userBody } from '@console/core/auth-testing';
import { LIVE_SOCKET } from '@console/core/live-socket';
import { fakeSockets, FakeSocket } from '@console/core/live-testing';
import { provideForTests, settle, typeInto } from '@console/testing';
import { SYSTEMS_PAGE_URL, SystemsPage, SystemSummary } from '@console/shared/systems/systems-api';
import { SystemListPage } from './system-list-page';
import { pageBody, systemBody } from '@console/shared/systems/systems-testing';

/** The page inside a scrolling box, as the console's shell holds it (its content scrolls, not the window). */
@Component({
  imports: [CdkVirtualScrollableElement, SystemListPage],
  template: `<div cdkVirtualScrollingElement style="height: 800px; overflow: auto"><argus-system-list-page /></div>`,
})
class InShell {}

describe('SystemListPage', () => {
  let fixture: ComponentFixture<InShell>;
  let http: HttpTestingController;

  const acme = { id: 10, name: 'Acme' };
  const globex = { id: 20, name: 'Globex' };
  const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000 - 5_000).toISOString();

  const fleet: SystemSummary[] = [
    systemBody({ id: 1, name: 'web-01', hostname: 'web-01.acme', customer: acme, lastSeenAt: minutesAgo(3) }),
    systemBody({
      id: 2,
      name: 'db-01',
      hostname: 'db-01.acme',
      customer: acme,
      status: 'CRITICAL',
      openAlerts: { critical: 2, warning: 1, info: 0 },
    }),
    systemBody({
      id: 3,
      name: 'new-host',
      hostname: 'fresh',
      customer: acme,
      cluster: null,
      status: 'PENDING',
      lastSeenAt: null,
      agentVersion: null,
      os: null,
    }),
    systemBody({
      id: 4,
      name: 'backup',
      hostname: 'nas.globex',
      customer: globex,
      cluster: { id: 200, name: 'office' },
      status: 'STANDBY',
    }),
  ];

  let sockets: FakeSocket[] = [];

  async function render(
    systems: SystemSummary[] | SystemsPage,
    role: 'ADMIN' | 'VIEWER' = 'ADMIN',
    live = false,
  ): Promise<void> {
    const fake = fakeSockets();
    sockets = fake.sockets;
    const socket = live ? [{ provide: LIVE_SOCKET, useValue: fake.factory }] : [];
    TestBed.configureTestingModule({ providers: [...provideForTests(), ...socket] });
    http = TestBed.inject(HttpTestingController);
    TestBed.inject(AuthService).updateUser(userBody({ role }));
    fixture = TestBed.createComponent(InShell);
    await settle(fixture);
    http
      .expectOne((req) => req.method === 'GET' && req.url === SYSTEMS_PAGE_URL)
      .flush(Array.isArray(systems) ? pageBody(systems) : systems);
    await rendered();
  }

  /** The virtual scroll measures and renders its lines in an animation frame after the change. */
  async function rendered(): Promise<void> {
    await settle(fixture);
    await new Promise((resolve) => requestAnimationFrame(resolve));
    await settle(fixture);
  }

  afterEach(() => http?.verify());

  const page = (): HTMLElement => fixture.nativeElement;
  const rows = () => Array.from(page().querySelectorAll<HTMLElement>('[data-testid="system"]'));
  const names = () => rows().map((row) => row.querySelector('a')?.textContent?.trim());
  /** A cell's value without the label that cards show (and screen readers read) in front of it. */
  const cell = (row: HTMLElement, column: number) =>
    Array.from(row.querySelectorAll('.cell')[column]?.childNodes ?? [])
      .filter((node) => !(node instanceof HTMLElement && node.classList.contains('label')))
      .map((node) => node.textContent)
      .join('')
      .trim();

  it('groups systems under their customer, then their cluster, "No cluster" last', async () => {
    await render(fleet);

    // one flat list in display order: customer, its clusters, their systems
    const customers: { name: string; clusters: [string, string[]][] }[] = [];
    for (const line of Array.from(page().querySelectorAll<HTMLElement>('[role="listitem"]'))) {
      const kind = line.dataset['testid'];
      if (kind === 'customer')
        customers.push({ name: line.querySelector('h2')!.firstChild!.textContent!.trim(), clusters: [] });
      else if (kind === 'cluster') customers.at(-1)!.clusters.push([line.textContent!.trim(), []]);
      else customers.at(-1)!.clusters.at(-1)![1].push(line.querySelector('a')!.textContent!.trim());
    }

    expect(customers).toEqual([
      {
        name: 'Acme',
        clusters: [
          ['prod', ['db-01', 'web-01']],
          ['No cluster', ['new-host']],
        ],
      },
      { name: 'Globex', clusters: [['office', ['backup']]] },
    ]);
    expect(page().querySelector('a[href="/systems/2"]')?.textContent?.trim()).toBe('db-01');
  });

  it('names every status in words: PENDING "Never reported", STANDBY "Powered off"', async () => {
    await render(fleet);

    const statuses = Object.fromEntries(rows().map((row) => [cell(row, 0), cell(row, 2)]));
    expect(statuses).toEqual({
      'db-01': 'Critical',
      'web-01': 'Online',
      'new-host': 'Never reported',
      backup: 'Powered off',
    });
    expect(page().querySelector('[data-status="STANDBY"]')?.className).toContain('status--standby');
  });

  it('shows open alert counts, agent, OS and a relative last-seen time', async () => {
    await render(fleet);
    const [db, web, fresh] = rows();

    expect(Array.from(db.querySelectorAll('.chip'), (chip) => chip.textContent?.trim())).toEqual([
      '2 critical',
      '1 warning',
    ]);
    expect(cell(web, 3)).toBe('None');
    expect(cell(web, 5)).toBe('2.28.1');
    expect(cell(web, 6)).toBe('Ubuntu 24.04');
    expect(cell(web, 7)).toBe('3 min ago');
    expect(web.querySelector('time')?.getAttribute('datetime')).toBe(fleet[0].lastSeenAt);
    expect([cell(fresh, 5), cell(fresh, 6), cell(fresh, 7)]).toEqual(['—', '—', 'Never']);
  });

  describe('CPU, memory and the fullest disk at a glance', () => {
    const usage = (cpu: number | null, memory: number | null, disk: number | null, diskMount: string | null = '/') => ({
      usage: { cpu, memory, disk, diskMount },
    });
    const measured: SystemSummary[] = [
      systemBody({ id: 1, name: 'web-01', customer: acme, ...usage(91.6, 30, 55, '/srv') }),
      systemBody({ id: 2, name: 'db-01', customer: acme, ...usage(12, 84.4, 97) }),
      systemBody({ id: 3, name: 'new-host', customer: acme, ...usage(null, null, null, null) }),
      systemBody({ id: 4, name: 'backup', customer: globex, ...usage(40, 50, 20) }),
    ];
    const figure = (row: HTMLElement, name: string) => row.querySelector<HTMLElement>(`[data-figure="${name}"]`)!;
    /** What a screen reader reads, and a card shows: the label and the value. */
    const spoken = (row: HTMLElement, name: string) => figure(row, name).textContent!.replace(/\s+/g, ' ').trim();
    const barWidth = (row: HTMLElement, name: string) =>
      figure(row, name).querySelector<HTMLElement>('.fill')?.style.width ?? null;
    const rowOf = (name: string) => rows().find((row) => row.querySelector('a')?.textContent?.trim() === name)!;

    async function sortBy(label: string): Promise<void> {
      (page().querySelector('[data-testid="sort"]') as HTMLElement).click();
      await settle(fixture);
      Array.from(document.querySelectorAll<HTMLElement>('mat-option'))
        .find((option) => option.textContent?.trim() === label)!
        .click();
      await rendered();
    }

    it('shows each figure as a bar with its value in text, the disk naming its mount, "—" when not reported', async () => {
      await render(measured);
      const web = rowOf('web-01');

      expect(['cpu', 'memory', 'disk'].map((name) => spoken(web, name))).toEqual([
        'CPU 92 %',
        'Memory 30 %',
        'Disk 55 %',
      ]);
      expect(['cpu', 'memory', 'disk'].map((name) => barWidth(web, name))).toEqual(['91.6%', '30%', '55%']);
      expect(figure(web, 'disk').querySelector('.value')?.getAttribute('title')).toBe('Fullest disk: /srv');
      expect(figure(web, 'cpu').querySelector('.track')?.getAttribute('aria-hidden')).toBe('true');
      // the colour repeats what the value says: amber from 80 %, red from 90 %
      expect(figure(web, 'cpu').querySelector('.fill')?.className).toContain('fill--full');
      expect(figure(rowOf('db-01'), 'memory').querySelector('.fill')?.className).toContain('fill--high');
      expect(figure(web, 'memory').querySelector('.fill')?.className).toContain('fill--normal');

      const fresh = rowOf('new-host');
      expect(['cpu', 'memory', 'disk'].map((name) => spoken(fresh, name))).toEqual(['CPU —', 'Memory —', 'Disk —']);
      expect(fresh.querySelector('.track')).toBeNull();
    });

    it('sorts by each figure, highest first, in one list without headings, and back to customers', async () => {
      await render(measured);
      await settle(fixture);

      await sortBy('CPU, highest first');
      expect(names()).toEqual(['web-01', 'backup', 'db-01', 'new-host']);
      expect(page().querySelectorAll('[data-testid="customer"]').length).toBe(0);
      await sortBy('Memory, highest first');
      expect(names()).toEqual(['db-01', 'backup', 'web-01', 'new-host']);
      await sortBy('Fullest disk first');
      expect(names()).toEqual(['db-01', 'web-01', 'backup', 'new-host']);
      await sortBy('Customer and cluster');
      expect(names()).toEqual(['db-01', 'new-host', 'web-01', 'backup']);
      expect(page().querySelectorAll('[data-testid="customer"]').length).toBe(2);
    });

    it('follows the live snapshot: the bars, the values and the order move with the newest figures', async () => {
      await render(measured, 'ADMIN', true);
      await settle(fixture);
      await sortBy('CPU, highest first');
      sockets[0].accept();
      const sid = sockets[0].subs().find((frame) => frame['topic'] === 'systems.list')?.['sid'];
      expect(sid).withContext('the whole fleet follows the live snapshot').toBeDefined();

      const [web, db, ...rest] = measured;
      sockets[0].receive({
        t: 'snap',
        sid,
        rev: 1,
        data: [{ ...web!, ...usage(5, 30, 55) }, { ...db!, ...usage(99, 84, 97) }, ...rest],
      });
      await rendered();

      expect(names()).toEqual(['db-01', 'backup', 'web-01', 'new-host']);
      expect(spoken(rowOf('db-01'), 'cpu')).toBe('CPU 99 %');
      expect(barWidth(rowOf('web-01'), 'cpu')).toBe('5%');
    });
  });

  it('filters by name, hostname or customer as the user types', async () => {
    await render(fleet);
    const input = page().querySelector<HTMLInputElement>('input[type="search"]');

    typeInto(input, 'DB');
    await settle(fixture);
    expect(names()).toEqual(['db-01']);

    typeInto(input, 'nas.glob');
    await settle(fixture);
    expect(names()).toEqual(['backup']);

    typeInto(input, 'acme');
    await settle(fixture);
    expect(names()).toEqual(['db-01', 'web-01', 'new-host']);
    expect(page().querySelectorAll('[data-testid="customer"]').length).toBe(1);
  });

  it('filters by status, with the count of each status in the options', async () => {
    await render(fleet);
    // The select shows its value once its options exist, a turn after the first render.
    await settle(fixture);
    expect(page().querySelector('[data-testid="status-filter"]')?.textContent?.trim()).toBe('Any status (4)');

    (page().querySelector('[data-testid="status-filter"]') as HTMLElement).click();
    await settle(fixture);
    const options = Array.from(document.querySelectorAll<HTMLElement>('mat-option'));
    expect(options.map((o) => o.textContent?.trim())).toEqual([
      'Any status (4)',
      'Critical (1)',
      'Offline (0)',
      'Warning (0)',
      'Online (1)',
      'Powered off (1)',
      'Never reported (1)',
    ]);

    options.find((o) => o.textContent?.includes('Never reported'))!.click();
    await settle(fixture);
    expect(names()).toEqual(['new-host']);
  });

  describe('a fleet larger than one page', () => {
    const many = Array.from({ length: 250 }, (_, i) =>
      systemBody({ id: 100 + i, name: `host-${String(i).padStart(4, '0')}`, customer: acme }),
    );
    const first = { ...pageBody(many, 'next'), total: 2000, customers: [{ id: acme.id, count: 2000 }] };

    it('renders only the lines on screen, the headings counted by the server, and says how many are held', async () => {
      await render(first);

      expect(rows().length).toBeGreaterThan(5);
      expect(rows().length).withContext('virtual scroll: not every row in the DOM').toBeLessThan(200);
      expect(names()[0]).toBe('host-0000');
      expect(page().querySelector('[data-testid="customer"] h2')?.textContent).toContain('2000 systems');
      expect(page().querySelector('[data-testid="more"]')?.textContent?.replace(/\s+/g, ' ').trim()).toBe(
        'Showing 250 of 2000 systems; more load as you scroll.',
      );
    });

    it('sends the text filter to the server once typing pauses, and shows its answer', async () => {
      await render(first);
      typeInto(page().querySelector<HTMLInputElement>('input[type="search"]'), 'host-001');
      await settle(fixture);
      http.expectNone((req) => req.params.has('q'));
      await new Promise((resolve) => setTimeout(resolve, 300));
      http
        .expectOne((req) => req.url === SYSTEMS_PAGE_URL && req.params.get('q') === 'host-001')
        .flush(pageBody(many.slice(10, 12)));
      await rendered();

      expect(names()).toEqual(['host-0010', 'host-0011']);
    });
  });

  it('says when nothing matches and clears the filters on request', async () => {
    await render(fleet);
    typeInto(page().querySelector<HTMLInputElement>('input[type="search"]'), 'nothing like this');
    await settle(fixture);

    expect(page().querySelector('[data-testid="no-match"]')?.textContent).toContain('No system matches');
    (page().querySelector('[data-testid="no-match"] button') as HTMLButtonElement).click();
    await rendered();

    expect(names().length).toBe(4);
  });

  it('explains how to add a system while there is none', async () => {
    await render([]);
    const empty = page().querySelector('[data-testid="empty"]')?.textContent ?? '';

    expect(empty).toContain('No systems yet');
    expect(empty).toContain('create a cluster');
    expect(empty).toContain('install command');
    expect(page().querySelector('[data-testid="empty"] a[href="/customers"]')).not.toBeNull();
    expect(page().querySelector('input[type="search"]')).toBeNull();
  });

  it('tells a viewer that others add hosts', async () => {
    await render([], 'VIEWER');

    expect(page().querySelector('[data-testid="empty"]')?.textContent).toContain('ask an administrator or operator');
  });
});
