import { TestBed } from '@angular/core/testing';

import { provideForTests } from '@console/testing';
import { Preview, PreviewSystem } from '@console/shared/rules/rules-api';
import { PreviewList } from './preview-list';

describe('PreviewList', () => {
  const system = (n: number): PreviewSystem => ({
    systemId: n,
    systemName: `host-${String(n).padStart(3, '0')}`,
    customerId: 10,
    customerName: 'Acme',
    instance: '',
    value: 97,
    sampledAt: '2026-11-26T09:00:00.000Z',
    projectedAt: null,
  });

  function render(preview: Preview): HTMLElement {
    TestBed.configureTestingModule({ providers: provideForTests() });
    const fixture = TestBed.createComponent(PreviewList);
    fixture.componentRef.setInput('preview', preview);
    fixture.detectChanges();
    return fixture.nativeElement as HTMLElement;
  }
  const text = (element: Element | null) => element?.textContent?.replace(/\s+/g, ' ').trim();

  it('says how many would fire and that only the first are listed, on a rule that fires on a whole fleet', () => {
    const page = render({
      evaluatedAt: '2026-11-26T09:00:00.000Z',
      note: 'The newest sample only.',
      total: 10_000,
      systems: Array.from({ length: 100 }, (_, i) => system(i)),
    });

    expect(text(page.querySelector('[data-testid="preview-total"]'))).toBe(
      '10000 would fire now; the first 100 by name are listed.',
    );
    expect(page.querySelectorAll('[data-testid="preview-system"]').length).toBe(100);
    expect(text(page.querySelector('[data-testid="preview-system"]'))).toBe('host-000 (Acme): 97');
  });

  it('lists all when all fit, and says when none would fire', () => {
    const two = render({ evaluatedAt: '', note: '', total: 2, systems: [system(1), system(2)] });
    expect(text(two.querySelector('[data-testid="preview-total"]'))).toBe('2 would fire now.');
    TestBed.resetTestingModule();
    const none = render({ evaluatedAt: '', note: '', total: 0, systems: [] });
    expect(text(none.querySelector('[data-testid="preview-empty"]'))).toBe('No system would fire now.');
  });

  it('says when a forecast would reach the threshold instead of the newest value', () => {
    const page = render({
      evaluatedAt: '',
      note: '',
      total: 1,
      systems: [{ ...system(1), instance: '/data', value: 49.9, projectedAt: '2026-11-25T14:07:30.000Z' }],
    });
    expect(text(page.querySelector('[data-testid="preview-system"]'))).toMatch(
      /^host-001 \/data \(Acme\): reaches it around \w{3} 2[56] Nov, \d\d:\d\d$/,
    );
  });
});
