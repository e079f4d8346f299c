import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { FormBuilder, Validators } from '@angular/forms';
import { MatButtonToggleModule } from '@angular/material/button-toggle';
import { MatChipsModule } from '@angular/material/chips';
import { MAT_DIALOG_DATA } from '@angular/material/dialog';
import { MatSelectModule } from '@angular/material/select';
import { merge } from 'rxjs';

import { wallClock, zonedInstant } from '@contracts/zoned-time';

import { AuthService } from '@console/core/auth';
import { LOADING } from '@console/core/loaded';
import { ScopeType } from '@console/shared/rules/rules-api';
import { ScopeTargetsApi } from '@console/shared/rules/scope-targets';
import { MaintenanceApi, MaintenanceWindow, WEEKDAYS, WindowFields, WindowKind } from './maintenance-api';
import { DialogSubmission } from '@console/ui/submission';
import { FORM_DIALOG } from '@console/ui/dialog-footer';
import { NameField } from '@console/ui/name-field';

export interface WindowDialogData {
  window?: MaintenanceWindow;
}

/** The value of a datetime-local input for an ISO instant, on the wall clock of `timeZone` (the customer's). */
export function localInput(iso: string | null, timeZone: string): string {
  if (!iso) return '';
  return new Date(wallClock(Date.parse(iso), timeZone)).toISOString().slice(0, 16);
}

/** The instant a datetime-local value ("2026-11-22T02:00") names on the wall clock of `timeZone`. */
export function zonedInput(local: string, timeZone: string): string {
  return new Date(zonedInstant(Date.parse(`${local}:00Z`), timeZone)).toISOString();
}

/** Creates or edits a maintenance window, one-off or weekly, in the customer's time zone. */
@Component({
  selector: 'argus-window-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [FORM_DIALOG, NameField, MatButtonToggleModule, MatChipsModule, MatSelectModule],
  templateUrl: './window-dialog.html',
  styles: `
    .kind {
      margin-bottom: 12px;
    }
  `,
})
export class WindowDialog {
  private readonly api = inject(MaintenanceApi);
  private readonly auth = inject(AuthService);
  protected readonly original = inject<WindowDialogData>(MAT_DIALOG_DATA).window ?? null;
  protected readonly weekdays = WEEKDAYS;
  protected readonly browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  protected readonly targets = toSignal(inject(ScopeTargetsApi).load(this.auth.user()), { initialValue: LOADING });

  protected readonly form = inject(FormBuilder).nonNullable.group({
    name: [this.original?.name ?? '', [Validators.required, Validators.maxLength(200)]],
    scopeType: (this.original?.scope.type ?? 'customer') as ScopeType,
    scopeId: [this.original?.scope.id ?? (null as number | null), Validators.required],
    kind: (this.original?.kind ?? 'once') as WindowKind,
    startsAt: localInput(this.original?.startsAt ?? null, this.original?.timeZone ?? this.browserZone),
    endsAt: localInput(this.original?.endsAt ?? null, this.original?.timeZone ?? this.browserZone),
    weekdays: [this.original?.weekdays ?? ([] as number[])],
    startTime: this.original?.startTime ?? '02:00',
    durationMinutes: [this.original?.durationMinutes ?? 60, [Validators.min(1), Validators.max(10_080)]],
  });
  private readonly values = toSignal(merge(this.form.valueChanges), { initialValue: this.form.getRawValue() });
  protected readonly kind = computed(() => this.values().kind ?? 'once');
  protected readonly scopeTargets = computed(() => {
    const targets = this.targets();
    return targets.state === 'ready' ? targets.value[this.values().scopeType ?? 'customer'] : [];
  });
  /** The zone a window is read in, one-off or weekly: its customer's. */
  protected readonly zone = computed(() => {
    const id = this.values().scopeId;
    return this.scopeTargets().find((t) => t.id === id)?.timeZone ?? this.original?.timeZone ?? null;
  });

  protected readonly submission = new DialogSubmission<MaintenanceWindow>(this.form);

  protected save(): void {
    if (!this.submission.ready()) return;
    const v = this.form.getRawValue();
    const once = v.kind === 'once';
    const zone = this.zone() ?? this.browserZone;
    const fields: WindowFields = {
      name: v.name.trim(),
      scope: { type: v.scopeType, id: v.scopeId as number },
      kind: v.kind,
      startsAt: once && v.startsAt ? zonedInput(v.startsAt, zone) : null,
      endsAt: once && v.endsAt ? zonedInput(v.endsAt, zone) : null,
      weekdays: once ? null : v.weekdays,
      startTime: once ? null : v.startTime,
      durationMinutes: once ? null : Number(v.durationMinutes),
    };
    const request = this.original ? this.api.update(this.original.id, fields) : this.api.create(fields);
    this.submission.save(request);
  }
}
