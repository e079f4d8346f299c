import { Component } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { Router } from '@angular/router';

import { App } from './app';
import { AuthService } from './core/auth';
import { userBody } from './core/auth-testing';
import { configureLiveForTests, FakeSocket } from './core/live-testing';
import { settle } from './testing';

@Component({ template: '' })
class Blank {}

describe('App shell and the live channel', () => {
  let sockets: FakeSocket[];

  async function render() {
    sockets = configureLiveForTests([{ path: '**', component: Blank }]);
    TestBed.inject(AuthService).updateUser(userBody());
    const fixture = TestBed.createComponent(App);
    await TestBed.inject(Router).navigateByUrl('/systems');
    await settle(fixture);
    return fixture;
  }

  it('shows the open-alerts counter from alerts.counts and updates it without a reload', async () => {
    const fixture = await render();
    const root: HTMLElement = fixture.nativeElement;
    expect(root.querySelector('[data-testid="open-alerts"]')).toBeNull();

    sockets[0].accept();
    const sid = sockets[0].subs().find((s) => s['topic'] === 'alerts.counts')?.['sid'];
    const counts = { open: 1, critical: 0, warning: 1, info: 0, unacknowledged: 1 };
    sockets[0].receive({ t: 'snap', sid, rev: 1, data: counts });
    await settle(fixture);
    const counter = root.querySelector('[data-testid="open-alerts"]') as HTMLElement;
    expect(counter.textContent?.trim()).toBe('1');
    expect(counter.getAttribute('href')).toBe('/alerts');
    expect(counter.classList).not.toContain('open-alerts--critical');

    sockets[0].receive({ t: 'snap', sid, rev: 2, data: { ...counts, open: 2, critical: 1 } });
    await settle(fixture);
    expect(counter.textContent?.trim()).toBe('2');
    expect(counter.classList).toContain('open-alerts--critical');
  });

  it('says live updates are paused while the connection is lost', async () => {
    const fixture = await render();
    const root: HTMLElement = fixture.nativeElement;
    sockets[0].accept();
    await settle(fixture);
    expect(root.querySelector('[data-testid="live-paused"]')).toBeNull();

    sockets[0].drop(1006);
    await settle(fixture);
    expect(root.querySelector('[data-testid="live-paused"]')?.textContent).toContain('Live updates paused');
  });
});
