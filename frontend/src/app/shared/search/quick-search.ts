import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { FormControl, ReactiveFormsModule } from '@angular/forms';
import { MatAutocompleteModule } from '@angular/material/autocomplete';
import { MatDialog, MatDialogModule, MatDialogRef } from '@angular/material/dialog';
import { MatFormFieldModule } from '@angular/material/form-field';
import { MatInputModule } from '@angular/material/input';
import { Router } from '@angular/router';
import { catchError, debounceTime, distinctUntilChanged, map, Observable, of, startWith, switchMap } from 'rxjs';

import { alertText } from '@console/shared/alerts/alert-text';
import { CHECK_STATE_LABELS, CHECK_TYPE_LABELS } from '@console/shared/checks/checks-api';
import { SearchApi, SearchResults } from './search-api';

/** One thing the search found, and where it leads. */
export interface SearchHit {
  title: string;
  detail: string;
  link: string[];
  fragment?: string;
  queryParams?: Record<string, string>;
}

interface HitGroup {
  label: string;
  hits: SearchHit[];
}

type Outcome = { state: 'idle' } | { state: 'failed' } | { state: 'found'; groups: HitGroup[] };

/** The answer as the list shows it: systems, checks, customers, containers, alerts, each leading to its page. */
export function hitGroups(results: SearchResults, now = Date.now()): HitGroup[] {
  const groups: HitGroup[] = [
    {
      label: 'Systems',
      hits: results.systems.map((s) => ({
        title: s.name,
        detail: `${s.customerName} · ${s.hostname}`,
        link: ['/systems', String(s.id)],
      })),
    },
    {
      label: 'Checks',
      hits: results.checks.map((c) => ({
        title: c.name,
        detail: `${c.customerName} · ${CHECK_TYPE_LABELS[c.type]} check · ${CHECK_STATE_LABELS[c.state].toLowerCase()}`,
        link: ['/checks', String(c.id)],
      })),
    },
    {
      label: 'Customers',
      hits: results.customers.map((c) => ({
        title: c.name,
        detail: c.active ? 'Customer' : 'Customer, inactive',
        link: ['/customers'],
        fragment: `customer-${c.id}`,
      })),
    },
    {
      label: 'Containers',
      hits: results.containers.map((c) => ({
        title: c.name,
        detail: [`Container on ${c.systemName}`, c.image, c.running ? 'running' : 'not running']
          .filter(Boolean)
          .join(' · '),
        link: ['/systems', String(c.systemId)],
        queryParams: { tab: 'containers', container: c.name },
      })),
    },
    {
      label: 'Alerts',
      hits: results.alerts.map((a) => ({
        title: `#${a.id} ${a.message ? alertText(a.message, a.timeZone, now) : a.ruleKey}`,
        detail: `${a.systemName} · ${a.severity.toLowerCase()} · ${a.state}`,
        link: ['/alerts', String(a.id)],
      })),
    },
  ];
  return groups.filter((group) => group.hits.length > 0);
}

/**
 * Jumps to any system, check, customer, container or alert by name (Ctrl+K or "/" anywhere in the console): a
 * combobox (Material's autocomplete) whose options are the server's best matches as you type.
 */
@Component({
  selector: 'argus-quick-search',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatAutocompleteModule, MatDialogModule, MatFormFieldModule, MatInputModule, ReactiveFormsModule],
  template: `
    <h2 mat-dialog-title>Search</h2>
    <mat-dialog-content>
      <mat-form-field class="field">
        <mat-label>Systems, checks, customers, containers and alerts</mat-label>
        <input
          matInput
          type="search"
          [formControl]="term"
          [matAutocomplete]="results"
          autocomplete="off"
          spellcheck="false"
          cdkFocusInitial
        />
        <mat-hint>A name, a host name, a rule, or an alert's number (#123)</mat-hint>
      </mat-form-field>
      <mat-autocomplete
        #results="matAutocomplete"
        [autoActiveFirstOption]="true"
        [displayWith]="titleOf"
        (optionSelected)="go($event.option.value)"
      >
        @for (group of groups(); track group.label) {
          <mat-optgroup [label]="group.label">
            @for (hit of group.hits; track hit.link.join('/') + hit.fragment + hit.queryParams?.['container']) {
              <mat-option [value]="hit">
                <span class="title">{{ hit.title }}</span>
                <span class="detail">{{ hit.detail }}</span>
              </mat-option>
            }
          </mat-optgroup>
        }
      </mat-autocomplete>
      <p class="status" role="status" data-testid="search-status">{{ status() }}</p>
    </mat-dialog-content>
  `,
  styles: `
    .field {
      width: min(36rem, 80vw);
    }
    /* two lines; as blocks they are two words of the option's accessible name, too */
    .title {
      display: block;
    }
    .detail {
      display: block;
      font: var(--mat-sys-body-small);
      color: var(--mat-sys-on-surface-variant);
    }
    .status {
      margin: 0;
      min-height: 1.5em;
      font: var(--mat-sys-body-small);
    }
  `,
})
export class QuickSearch {
  private readonly api = inject(SearchApi);
  private readonly router = inject(Router);
  private readonly dialogRef = inject(MatDialogRef<QuickSearch>);

  protected readonly term = new FormControl('', { nonNullable: true });

  private readonly outcome = toSignal(
    this.term.valueChanges.pipe(
      // a hit chosen puts the hit itself into the control: that is no new term
      map((value) => (typeof value === 'string' ? value.trim() : null)),
      debounceTime(150),
      distinctUntilChanged(),
      switchMap((term): Observable<Outcome> => (term ? this.find(term) : of({ state: 'idle' }))),
      startWith({ state: 'idle' } as Outcome),
    ),
    { requireSync: true },
  );

  protected readonly groups = computed(() => {
    const outcome = this.outcome();
    return outcome.state === 'found' ? outcome.groups : [];
  });

  /** Said to screen readers too: how many were found, or why nothing was. */
  protected readonly status = computed(() => {
    const outcome = this.outcome();
    if (outcome.state === 'failed') return 'The search failed; try again.';
    if (outcome.state === 'idle') return '';
    const count = outcome.groups.reduce((sum, group) => sum + group.hits.length, 0);
    return count === 0 ? 'No matches' : count === 1 ? '1 match' : `${count} matches`;
  });

  protected readonly titleOf = (hit: SearchHit | string | null) => (typeof hit === 'string' ? hit : (hit?.title ?? ''));

  protected go(hit: SearchHit): void {
    this.dialogRef.close();
    void this.router.navigate(hit.link, {
      ...(hit.fragment ? { fragment: hit.fragment } : {}),
      ...(hit.queryParams ? { queryParams: hit.queryParams } : {}),
    });
  }

  private find(term: string): Observable<Outcome> {
    return this.api.search(term).pipe(
      map((results): Outcome => ({ state: 'found', groups: hitGroups(results) })),
      catchError(() => of<Outcome>({ state: 'failed' })),
    );
  }
}

export function openQuickSearch(dialog: MatDialog): void {
  if (dialog.getDialogById('quick-search')) return;
  dialog.open(QuickSearch, { id: 'quick-search', position: { top: '12vh' } });
}
