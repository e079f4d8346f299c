import { ChangeDetectionStrategy, Component, effect, inject, input, output, untracked } from '@angular/core';
import { FormArray, FormControl, FormGroup, ReactiveFormsModule, Validators } from '@angular/forms';
import { MatButtonModule } from '@angular/material/button';
import { MatFormFieldModule } from '@angular/material/form-field';
import { MatInputModule } from '@angular/material/input';
import { MatSelectModule } from '@angular/material/select';

import { Severity } from '@console/core/auth';
import { Icon } from '@console/ui/icon';
import { SEVERITY_LABELS } from '@console/shared/alerts/alerts-api';
import { Channel, NotificationsApi, Policy, PolicyFields } from '@console/shared/notifications/notifications-api';
import { SEVERITIES } from './channel-dialog';
import { FormFooter } from '@console/ui/form-footer';
import { Submission } from '@console/ui/submission';

/** docs/api.md: at most 20 routes; repeat and escalation minutes 1–10080 (a week). */
export const MAX_ROUTES = 20;
const MINUTES = [Validators.min(1), Validators.max(10_080), Validators.pattern(/^\d+$/)];

type RouteForm = FormGroup<{ minSeverity: FormControl<Severity>; channelIds: FormControl<number[]> }>;

function routeForm(minSeverity: Severity = 'INFO', channelIds: number[] = []): RouteForm {
  return new FormGroup({
    minSeverity: new FormControl(minSeverity, { nonNullable: true }),
    channelIds: new FormControl(channelIds, { nonNullable: true, validators: Validators.required }),
  });
}

/** "Ops Slack", "Ops Slack (all customers)", "Pager (disabled)": how a channel reads in a policy. */
export function channelLabel(channel: Channel, inCustomerPolicy: boolean): string {
  const marks = [
    inCustomerPolicy && channel.customerId === null ? 'all customers' : '',
    channel.enabled ? '' : 'disabled',
  ];
  const extra = marks.filter(Boolean).join(', ');
  return extra ? `${channel.name} (${extra})` : channel.name;
}

/** Edits a routing policy (the global one or a customer's) and saves it with PUT. */
@Component({
  selector: 'argus-policy-editor',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    Icon,
    FormFooter,
    MatButtonModule,
    MatFormFieldModule,
    MatInputModule,
    MatSelectModule,
    ReactiveFormsModule,
  ],
  templateUrl: './policy-editor.html',
  styles: `
    fieldset {
      border: 1px solid var(--mat-sys-outline-variant);
      border-radius: var(--mat-sys-corner-medium);
      padding: 8px 16px 0;
      margin: 0 0 12px;
    }
    legend {
      padding: 0 4px;
      font: var(--mat-sys-title-small);
    }
    .route {
      display: flex;
      flex-wrap: wrap;
      gap: 0 12px;
      align-items: flex-start;
    }
    .route .severity {
      flex: 0 1 200px;
    }
    .route .channels {
      flex: 1 1 260px;
    }
    .route button {
      margin-top: 8px;
    }
  `,
})
export class PolicyEditor {
  private readonly api = inject(NotificationsApi);
  /** What to show: a saved policy, or for a customer without one the global routes it follows. */
  readonly policy = input.required<Policy>();
  /** The channels this policy may name: global ones, plus the customer's own for a customer policy. */
  readonly channels = input.required<Channel[]>();
  readonly saved = output<Policy>();

  protected readonly severities = SEVERITIES;
  protected readonly severityLabels = SEVERITY_LABELS;
  protected readonly maxRoutes = MAX_ROUTES;
  protected readonly form = new FormGroup({
    routes: new FormArray<RouteForm>([]),
    repeatMinutes: new FormControl<number | null>(null, MINUTES),
    escalateAfterMinutes: new FormControl<number | null>(null, MINUTES),
    escalateChannelIds: new FormControl<number[]>([], { nonNullable: true }),
  });
  protected readonly routes = this.form.controls.routes;
  protected readonly submission = new Submission(this.form);
  private shownFor: number | null | undefined = undefined;

  constructor() {
    // A reload (live change, own save) refreshes the form unless the user is editing it; another
    // customer's policy always replaces it.
    effect(() => {
      const policy = this.policy();
      untracked(() => {
        if (this.form.pristine || policy.customerId !== this.shownFor) this.load(policy);
      });
    });
  }

  protected label(channel: Channel): string {
    return channelLabel(channel, this.policy().customerId !== null);
  }

  protected addRoute(): void {
    this.routes.push(routeForm());
    this.form.markAsDirty();
  }

  protected removeRoute(index: number): void {
    this.routes.removeAt(index);
    this.form.markAsDirty();
  }

  protected save(): void {
    const v = this.form.getRawValue();
    if (v.escalateAfterMinutes !== null && v.escalateChannelIds.length === 0) {
      this.form.controls.escalateChannelIds.setErrors({ required: true });
    }
    if (!this.submission.ready()) return;
    const fields: PolicyFields = {
      routes: v.routes.map((r) => ({ minSeverity: r.minSeverity, channelIds: r.channelIds })),
      repeatMinutes: v.repeatMinutes === null ? null : Number(v.repeatMinutes),
      escalateAfterMinutes: v.escalateAfterMinutes === null ? null : Number(v.escalateAfterMinutes),
      escalateChannelIds: v.escalateAfterMinutes === null ? [] : v.escalateChannelIds,
    };
    const customerId = this.policy().customerId;
    const request =
      customerId === null ? this.api.putGlobalPolicy(fields) : this.api.putCustomerPolicy(customerId, fields);
    this.submission.run(request, (policy) => {
      this.form.markAsPristine();
      this.saved.emit(policy);
    });
  }

  private load(policy: Policy): void {
    this.shownFor = policy.customerId;
    this.routes.clear();
    for (const route of policy.routes) this.routes.push(routeForm(route.minSeverity, [...route.channelIds]));
    this.form.reset({
      repeatMinutes: policy.repeatMinutes,
      escalateAfterMinutes: policy.escalateAfterMinutes,
      escalateChannelIds: [...policy.escalateChannelIds],
    });
    this.submission.error.set(null);
  }
}
