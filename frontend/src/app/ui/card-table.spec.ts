import { Component, signal } from '@angular/core';
import { ComponentFixture, TestBed } from '@angular/core/testing';

import { provideForTests, settle } from '@console/testing';
import { CardTable } from './card-table';

/** A table like the pages': a named column, one whose header is only read out, and rows that come later. */
@Component({
  imports: [CardTable],
  template: `
    <table argusCardTable>
      <thead>
        <tr>
          <th>Name</th>
          <th>Minimum severity</th>
          <th><span class="sr-only">Actions</span></th>
        </tr>
      </thead>
      <tbody>
        @for (row of rows(); track row) {
          <tr>
            <td>{{ row }}</td>
            <td>Warning</td>
            <td>
              <button type="button">Edit {{ row }}</button>
            </td>
          </tr>
        }
      </tbody>
    </table>
  `,
})
class Host {
  readonly rows = signal(['web-01']);
}

describe('CardTable', () => {
  let fixture: ComponentFixture<Host>;

  beforeEach(async () => {
    TestBed.configureTestingModule({ providers: provideForTests() });
    fixture = TestBed.createComponent(Host);
    await settle(fixture);
  });

  const labels = (): (string | null)[][] =>
    [...(fixture.nativeElement as HTMLElement).querySelectorAll('tbody tr')].map((row) =>
      [...row.querySelectorAll('td')].map((cell) => cell.getAttribute('data-label')),
    );

  it('marks the table for the card layout', () => {
    expect((fixture.nativeElement as HTMLElement).querySelector('table')?.classList).toContain('card-table');
  });

  it("labels each cell with its column's header, and an actions cell with nothing visible", () => {
    expect(labels()).toEqual([['Name', 'Minimum severity', '']]);
  });

  it('labels rows that arrive after the first render', async () => {
    fixture.componentInstance.rows.set(['web-01', 'db-01']);
    await settle(fixture);
    await new Promise((resolve) => setTimeout(resolve)); // the observer's callback is a microtask away
    expect(labels()).toEqual([
      ['Name', 'Minimum severity', ''],
      ['Name', 'Minimum severity', ''],
    ]);
  });
});
