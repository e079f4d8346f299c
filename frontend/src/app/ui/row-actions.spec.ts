import { Component, signal } from '@angular/core';
import { ComponentFixture, TestBed } from '@angular/core/testing';

import { provideForTests, settle } from '@console/testing';
import { RowActions } from './row-actions';

/** A host like the tables that use it: a row label, a right, and something projected between the buttons. */
@Component({
  imports: [RowActions],
  template: `
    <div class="cell">
      <argus-row-actions
        [label]="label()"
        [allowed]="allowed()"
        [editVerb]="verb()"
        (edit)="events.push('edit ' + label())"
        (delete)="events.push('delete ' + label())"
      >
        <button type="button">Override</button>
      </argus-row-actions>
    </div>
  `,
})
class Host {
  readonly label = signal('cpu.high');
  readonly allowed = signal(true);
  readonly verb = signal('Edit');
  readonly events: string[] = [];
}

describe('RowActions', () => {
  let fixture: ComponentFixture<Host>;

  beforeEach(async () => {
    TestBed.configureTestingModule({ providers: provideForTests() });
    fixture = TestBed.createComponent(Host);
    await settle(fixture);
  });

  const buttonLabels = (): (string | null)[] =>
    Array.from(fixture.nativeElement.querySelectorAll('button') as NodeListOf<HTMLButtonElement>).map(
      (b) => b.getAttribute('aria-label') ?? b.textContent?.trim() ?? null,
    );

  it('names the item in both buttons, with the projected content between them', () => {
    expect(buttonLabels()).toEqual(['Edit cpu.high', 'Override', 'Delete cpu.high']);
  });

  it('emits edit and delete when the buttons are clicked', async () => {
    const page: HTMLElement = fixture.nativeElement;
    page.querySelector<HTMLButtonElement>('button[aria-label="Edit cpu.high"]')!.click();
    page.querySelector<HTMLButtonElement>('button[aria-label="Delete cpu.high"]')!.click();
    await settle(fixture);
    expect(fixture.componentInstance.events).toEqual(['edit cpu.high', 'delete cpu.high']);
  });

  it('takes another verb for the edit button, e.g. Replace for a secret', async () => {
    fixture.componentInstance.verb.set('Replace');
    await settle(fixture);
    expect(buttonLabels()).toEqual(['Replace cpu.high', 'Override', 'Delete cpu.high']);
  });

  it('shows only the projected content when the account may not change the item', async () => {
    fixture.componentInstance.allowed.set(false);
    await settle(fixture);
    expect(buttonLabels()).toEqual(['Override']);
  });

  it('adds no box of its own, so the buttons lay out in the host cell as before', () => {
    const host: HTMLElement = fixture.nativeElement.querySelector('argus-row-actions');
    expect(getComputedStyle(host).display).toBe('contents');
  });
});
