import { Component, signal } from '@angular/core';
import { FormControl, Validators } from '@angular/forms';

import { renderForTests, settle } from '@console/testing';
import { IconButton } from './icon-button';
import { NameField } from './name-field';
import { PageHeader } from './page-header';
import { Table } from './table';

/** A page built from the shared scaffolding, as the list pages use it. */
@Component({
  imports: [IconButton, NameField, PageHeader, Table],
  template: `
    <argus-page-header heading="Windows" [add]="mayAdd() ? 'New window' : null" (added)="events.push('add')">
      When nothing is raised.
    </argus-page-header>
    <argus-table label="Windows" [columns]="['Name', 'Schedule']" actions="Actions" ruled>
      <tbody>
        <tr>
          <td>Patch night</td>
          <td>Sundays</td>
          <td>
            <argus-icon-button icon="delete" tooltip="Delete" label="Delete Patch night" (pressed)="events.push('x')" />
          </td>
        </tr>
      </tbody>
    </argus-table>
    <form><argus-name-field [control]="name" first /></form>
  `,
})
class Host {
  readonly mayAdd = signal(true);
  readonly name = new FormControl('', { nonNullable: true, validators: Validators.required });
  readonly events: string[] = [];
}

describe('the shared page scaffolding', () => {
  async function render() {
    const { fixture } = renderForTests(Host);
    await settle(fixture);
    return { fixture, page: fixture.nativeElement as HTMLElement };
  }

  it('heads a page with its heading, its intro and the add button, which the account may lack', async () => {
    const { fixture, page } = await render();
    expect(page.querySelector('h1')?.textContent?.trim()).toBe('Windows');
    expect(page.querySelector('header p')?.textContent?.trim()).toBe('When nothing is raised.');
    (page.querySelector('header button') as HTMLButtonElement).click();
    expect(fixture.componentInstance.events).toEqual(['add']);
    fixture.componentInstance.mayAdd.set(false);
    await settle(fixture);
    expect(page.querySelector('header button')).toBeNull();
  });

  it('draws a named table whose header cells are column headers, the actions one read out only', async () => {
    const { page } = await render();
    const table = page.querySelector('table') as HTMLTableElement;
    expect(table.getAttribute('aria-label')).toBe('Windows');
    expect(table.classList).toContain('argus-table');
    const heads = Array.from(table.querySelectorAll('thead th'));
    expect(heads.map((th) => th.getAttribute('scope'))).toEqual(['col', 'col', 'col']);
    expect(heads.map((th) => th.textContent?.trim())).toEqual(['Name', 'Schedule', 'Actions']);
    expect(heads[2]?.querySelector('.sr-only')?.textContent).toBe('Actions');
    // the projected rows are the table's own, labelled for card mode
    const cells = Array.from(table.tBodies[0]?.rows[0]?.cells ?? []);
    expect(cells.map((td) => td.getAttribute('data-label'))).toEqual(['Name', 'Schedule', '']);
  });

  it('names an icon-only button by its verb and object, and reports the press', async () => {
    const { fixture, page } = await render();
    const button = page.querySelector('argus-icon-button button') as HTMLButtonElement;
    expect(button.getAttribute('aria-label')).toBe('Delete Patch night');
    button.click();
    expect(fixture.componentInstance.events).toEqual(['x']);
  });

  it('asks for a name, shows the server refusal under it, and takes the first focus', async () => {
    const { fixture, page } = await render();
    const input = page.querySelector('argus-name-field input') as HTMLInputElement;
    expect(input.hasAttribute('cdkfocusinitial')).toBeTrue();
    expect(page.querySelector('argus-name-field mat-label')?.textContent).toBe('Name');
    fixture.componentInstance.name.markAsTouched();
    await settle(fixture);
    expect(page.querySelector('mat-error')?.textContent?.trim()).toBe('Enter a name.');
    // as a submission shows a refusal: on a name the form had taken as valid
    fixture.componentInstance.name.setValue('Patch night');
    await settle(fixture);
    fixture.componentInstance.name.setErrors({ server: 'A window of that name exists' });
    await settle(fixture);
    expect(page.querySelector('mat-error')?.textContent?.trim()).toBe('A window of that name exists');
  });
});
