import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { toObservable, toSignal } from '@angular/core/rxjs-interop';
import { MatButtonModule } from '@angular/material/button';
import { MatFormFieldModule } from '@angular/material/form-field';
import { MatProgressBarModule } from '@angular/material/progress-bar';
import { MatSelectModule } from '@angular/material/select';
import { of, switchMap } from 'rxjs';

import { AuthService } from '@console/core/auth';
import { LOADING } from '@console/core/loaded';
import { Refreshing } from '@console/core/refresh';
import { mayWriteAt } from '@console/core/rights';
import { byName, CustomersApi, Fleet } from '@console/shared/customers/customers-api';
import { Channel, NotificationsApi, Policy } from '@console/shared/notifications/notifications-api';
import { PolicyEditor } from './policy-editor';
import { PolicySummary } from './policy-summary';
import { ConfirmThen } from '@console/ui/confirm-dialog';
import { Notify } from '@console/ui/notify';
import { LoadState } from '@console/ui/load-state';
import { PageHeader } from '@console/ui/page-header';

/**
 * Notification routing: the global policy (ADMIN edits it, operators read it) and each customer's own
 * policy, which replaces the global one for that customer's alerts.
 */
@Component({
  selector: 'argus-routing-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    PageHeader,
    LoadState,
    MatButtonModule,
    MatFormFieldModule,
    MatProgressBarModule,
    MatSelectModule,
    PolicyEditor,
    PolicySummary,
  ],
  template: `
    <argus-page-header heading="Notification routing"
      >Which channels an alert goes to, by severity, and when it is repeated or escalated. A customer's own policy
      replaces the global one for its alerts.</argus-page-header
    >
    @let policies = policiesState();
    @let channels = channelsState();
    <section aria-labelledby="global-title">
      <h2 id="global-title">Global policy</h2>
      <p class="field-note">For the alerts of every customer without its own policy.</p>
      @if (policies.state === 'error') {
        <p class="form-error" role="alert">{{ policies.message }}</p>
      } @else if (channels.state === 'error') {
        <p class="form-error" role="alert">{{ channels.message }}</p>
      } @else if (global(); as g) {
        @if (isAdmin()) {
          <argus-policy-editor [policy]="g" [channels]="globalChannels()" (saved)="done('Global policy saved')" />
        } @else {
          <p class="field-note" data-testid="global-read-only">Only administrators change the global policy.</p>
          <argus-policy-summary [policy]="g" [channels]="allChannels()" />
        }
      } @else {
        <mat-progress-bar mode="indeterminate" aria-label="Loading the global policy" />
      }
    </section>
    <section aria-labelledby="customer-title">
      <h2 id="customer-title">Customer policy</h2>
      <mat-form-field class="customer">
        <mat-label>Customer</mat-label>
        <mat-select [value]="customerId()" (selectionChange)="customerId.set($event.value)" data-testid="customer">
          @for (c of customers(); track c.id) {
            <mat-option [value]="c.id">{{ c.name }}{{ ownPolicy().has(c.id) ? ' (own policy)' : '' }}</mat-option>
          }
        </mat-select>
      </mat-form-field>
      @if (customerId() === null) {
        <p class="field-note">Pick a customer to see how its alerts are routed.</p>
      } @else {
        @let state = customerPolicy();
        <argus-load-state [state]="state" label="Loading the customer's policy" />
        @if (state.state === 'ready') {
          @let p = state.value;
          <p data-testid="policy-kind">
            @if (p.custom) {
              {{ customerName() }} has its own policy.
            } @else {
              {{ customerName() }} follows the global policy.
              @if (mayWriteCustomer()) {
                Saving gives it its own, starting from the global routes shown here.
              }
            }
          </p>
          @if (mayWriteCustomer()) {
            <argus-policy-editor [policy]="p" [channels]="customerChannels()" (saved)="done('Policy saved')">
              @if (p.custom) {
                <button mat-button type="button" class="aside" (click)="useGlobal(p)">Use the global policy</button>
              }
            </argus-policy-editor>
          } @else {
            <argus-policy-summary [policy]="p" [channels]="allChannels()" />
          }
        }
      }
    </section>
  `,
  styles: `
    section + section {
      margin-top: 32px;
    }
    h2 {
      font: var(--mat-sys-title-large);
      margin: 0 0 4px;
    }
    .customer {
      width: min(100%, 360px);
    }
  `,
})
export class RoutingPage {
  private readonly api = inject(NotificationsApi);
  private readonly notify = inject(Notify);
  private readonly confirmThen = inject(ConfirmThen);
  private readonly auth = inject(AuthService);
  protected readonly isAdmin = this.auth.isAdmin;

  protected readonly policiesState = toSignal(this.api.policies$, { initialValue: LOADING as Refreshing<Policy[]> });
  protected readonly channelsState = toSignal(this.api.channels$, { initialValue: LOADING as Refreshing<Channel[]> });
  private readonly fleet = toSignal(inject(CustomersApi).fleet$, { initialValue: LOADING as Refreshing<Fleet> });

  protected readonly allChannels = computed(() => {
    const state = this.channelsState();
    return state.state === 'ready' ? state.value : [];
  });
  protected readonly globalChannels = computed(() => this.allChannels().filter((c) => c.customerId === null));
  /** A customer's policy may name the global channels and the customer's own. */
  protected readonly customerChannels = computed(() =>
    this.allChannels().filter((c) => c.customerId === null || c.customerId === this.customerId()),
  );
  /** Shown once both the policy and the channels it names are there. */
  protected readonly global = computed(() => {
    const policies = this.policiesState();
    if (policies.state !== 'ready' || this.channelsState().state !== 'ready') return null;
    return policies.value.find((p) => p.customerId === null) ?? null;
  });
  protected readonly ownPolicy = computed(() => {
    const policies = this.policiesState();
    const custom = policies.state === 'ready' ? policies.value.filter((p) => p.custom && p.customerId !== null) : [];
    return new Set(custom.map((p) => p.customerId));
  });

  protected readonly customers = computed(() => {
    const fleet = this.fleet();
    return fleet.state === 'ready' ? [...fleet.value.customers].sort(byName) : [];
  });
  protected readonly customerId = signal<number | null>(null);
  protected readonly customerName = computed(
    () => this.customers().find((c) => c.id === this.customerId())?.name ?? 'This customer',
  );
  protected readonly mayWriteCustomer = computed(() => {
    const id = this.customerId();
    return id !== null && mayWriteAt(this.auth.user(), id);
  });
  protected readonly customerPolicy = toSignal(
    toObservable(this.customerId).pipe(switchMap((id) => (id === null ? of(LOADING) : this.api.customerPolicy$(id)))),
    { initialValue: LOADING as Refreshing<Policy> },
  );

  protected done(message: string): void {
    this.notify.done(message);
  }

  protected useGlobal(policy: Policy): void {
    const customerId = policy.customerId;
    if (customerId === null) return;
    this.confirmThen.run({
      title: `Use the global policy for ${this.customerName()}?`,
      message: 'Its own routes, repeat and escalation are deleted; its alerts follow the global policy.',
      confirm: 'Use the global policy',
      action: () => this.api.deleteCustomerPolicy(customerId),
      done: () => `${this.customerName()} follows the global policy`,
    });
  }
}
