import { TestBed } from '@angular/core/testing';
import { MatTooltip } from '@angular/material/tooltip';
import { By } from '@angular/platform-browser';
import { provideRouter } from '@angular/router';

import { App } from './app';

describe('App shell', () => {
  async function render() {
    TestBed.configureTestingModule({ providers: [provideRouter([])] });
    const fixture = TestBed.createComponent(App);
    await fixture.whenStable();
    return fixture;
  }

  it('names the product in the toolbar', async () => {
    const fixture = await render();

    expect(fixture.nativeElement.querySelector('mat-toolbar').textContent).toContain('Argus');
  });

  it('lists every area of the console in the navigation, in order', async () => {
    const fixture = await render();
    const nav: HTMLElement = fixture.nativeElement.querySelector('mat-nav-list');
    const labels = Array.from(nav.querySelectorAll('[matListItemTitle]'), (el) => el.textContent?.trim());

    expect(labels).toEqual(['Status', 'Systems', 'Alerts', 'Rules', 'Maintenance', 'Customers', 'Users', 'Settings']);
  });

  it('links only to pages that exist; the others are disabled and marked as coming soon', async () => {
    const fixture = await render();
    const links = Array.from(fixture.nativeElement.querySelectorAll('mat-nav-list a[href]') as NodeListOf<HTMLElement>);

    expect(links.map((a) => [a.textContent?.trim(), a.getAttribute('href')])).toEqual([['Status', '/']]);

    const comingSoon = fixture.debugElement.queryAll(By.directive(MatTooltip));
    expect(comingSoon.length).toBe(7);
    for (const entry of comingSoon) {
      expect(entry.injector.get(MatTooltip).message).toBe('Coming soon');
      expect(entry.query(By.css('mat-list-item')).attributes['aria-disabled']).toBe('true');
    }
  });
});
