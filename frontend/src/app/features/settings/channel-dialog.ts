import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { FormBuilder, Validators } from '@angular/forms';
import { MAT_DIALOG_DATA } from '@angular/material/dialog';
import { MatSelectModule } from '@angular/material/select';
import { MatSlideToggleModule } from '@angular/material/slide-toggle';
import { Observable } from 'rxjs';

import { AuthService, Severity } from '@console/core/auth';
import { LOADING } from '@console/core/loaded';
import { mayWriteAt } from '@console/core/rights';
import { SEVERITY_LABELS } from '@console/shared/alerts/alerts-api';
import { byName, CustomersApi } from '@console/shared/customers/customers-api';
import {
  Channel,
  ChannelChanges,
  ChannelCreate,
  CHANNEL_TYPE_LABELS,
  CHANNEL_TYPES,
  ChannelType,
  NotificationsApi,
} from '@console/shared/notifications/notifications-api';
import { DialogSubmission } from '@console/ui/submission';
import { FORM_DIALOG } from '@console/ui/dialog-footer';
import { choicesOf, Field, namedChoices } from '@console/ui/field';
import { NameField } from '@console/ui/name-field';

export interface ChannelDialogData {
  /** The channel to edit; absent to create one. */
  channel?: Channel;
}

/** On edit, what happens to the signing secret (never shown): left as it is, replaced or removed. */
export type SecretMode = 'keep' | 'replace' | 'remove';

export const SEVERITIES: readonly Severity[] = ['INFO', 'WARNING', 'CRITICAL'];

const URL_LABELS: Record<Exclude<ChannelType, 'email'>, string> = {
  webhook: 'Webhook URL',
  slack: 'Slack incoming webhook URL',
  teams: 'Teams webhook URL',
  discord: 'Discord webhook URL',
  ntfy: 'ntfy topic URL',
};

/** Creates a notification channel or edits one; a URL target and the secret are write-only. */
@Component({
  selector: 'argus-channel-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [FORM_DIALOG, Field, NameField, MatSelectModule, MatSlideToggleModule],
  templateUrl: './channel-dialog.html',
})
export class ChannelDialog {
  private readonly api = inject(NotificationsApi);
  private readonly auth = inject(AuthService);
  protected readonly original = inject<ChannelDialogData>(MAT_DIALOG_DATA).channel ?? null;
  protected readonly typeChoices = choicesOf(CHANNEL_TYPES, CHANNEL_TYPE_LABELS);
  protected readonly severityChoices = choicesOf(SEVERITIES, SEVERITY_LABELS);
  protected readonly isAdmin = this.auth.isAdmin;

  private readonly fleet = toSignal(inject(CustomersApi).loadFleet(), { initialValue: LOADING });
  /** Where the account may place a channel; "All customers" (global) is offered to ADMIN only. */
  protected readonly customerOptions = computed(() => {
    const fleet = this.fleet();
    const user = this.auth.user();
    const options: { id: number | null; name: string }[] = this.auth.isAdmin()
      ? [{ id: null, name: 'All customers' }]
      : [];
    if (fleet.state === 'ready')
      options.push(...fleet.value.customers.filter((c) => mayWriteAt(user, c.id)).sort(byName));
    // on edit the field is read-only, but it must still name the channel's customer
    const own = this.original;
    if (own && !options.some((o) => o.id === own.customerId)) {
      options.push({ id: own.customerId, name: own.customerName ?? 'All customers' });
    }
    return options;
  });
  protected readonly customerChoices = computed(() => namedChoices(this.customerOptions()));

  protected readonly form = inject(FormBuilder).nonNullable.group({
    name: [this.original?.name ?? '', [Validators.required, Validators.maxLength(200)]],
    type: [{ value: this.original?.type ?? ('webhook' as ChannelType), disabled: !!this.original }],
    customerId: [
      {
        value: this.original ? this.original.customerId : this.auth.isAdmin() ? null : this.firstGrant(),
        disabled: !!this.original,
      },
      this.auth.isAdmin() ? [] : [Validators.required],
    ],
    // Required, except a URL target on edit: empty keeps the sealed one.
    target: [
      this.original?.type === 'email' ? (this.original.target ?? '') : '',
      !this.original || this.original.type === 'email' ? [Validators.required, Validators.maxLength(2000)] : [],
    ],
    secretMode: ['keep' as SecretMode],
    secret: ['', Validators.maxLength(500)],
    minSeverity: [this.original?.minSeverity ?? ('INFO' as Severity)],
    enabled: [this.original?.enabled ?? true],
  });
  private readonly values = toSignal(this.form.valueChanges, { initialValue: this.form.getRawValue() });
  protected readonly type = computed(() => this.original?.type ?? this.values().type ?? 'webhook');
  protected readonly secretMode = computed(() => this.values().secretMode ?? 'keep');
  protected readonly targetLabel = computed(() => {
    const type = this.type();
    return type === 'email' ? 'Recipients' : URL_LABELS[type];
  });
  protected readonly targetHint = computed(() => {
    if (this.type() === 'email') {
      return '"accounts": every account that may see the alert, each with its own minimum severity; or e-mail addresses separated by commas.';
    }
    if (this.original) return `Now ${this.original.targetHint}. Leave empty to keep it.`;
    return 'An http(s) address without credentials. It is kept sealed: afterwards only its host is shown.';
  });
  /** Signing applies to the webhook contract (X-Argus-Signature); a secret set before stays manageable. */
  protected readonly signs = computed(() => this.type() === 'webhook' || !!this.original?.hasSecret);

  protected readonly submission = new DialogSubmission<Channel>(this.form);

  private firstGrant(): number | null {
    return this.auth.user()?.customerIds[0] ?? null;
  }

  protected save(): void {
    const v = this.form.getRawValue();
    const secret = this.form.controls.secret;
    if (this.original && v.secretMode === 'replace' && !v.secret) secret.setErrors({ required: true });
    if (!this.submission.ready()) return;
    this.submission.save(this.request(v));
  }

  private request(v: ReturnType<typeof this.form.getRawValue>): Observable<Channel> {
    const target = v.target.trim();
    if (!this.original) {
      const fields: ChannelCreate = {
        name: v.name.trim(),
        type: v.type,
        target,
        minSeverity: v.minSeverity,
        enabled: v.enabled,
        customerId: v.customerId,
      };
      if (v.secret && v.type === 'webhook') fields.secret = v.secret;
      return this.api.createChannel(fields);
    }
    const changes: ChannelChanges = { name: v.name.trim(), minSeverity: v.minSeverity, enabled: v.enabled };
    if (target && target !== this.original.target) changes.target = target;
    if (v.secretMode === 'replace') changes.secret = v.secret;
    if (v.secretMode === 'remove') changes.secret = null;
    return this.api.updateChannel(this.original.id, changes);
  }
}
