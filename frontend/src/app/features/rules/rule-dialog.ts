import { Directive, inject } from '@angular/core';
import { FormGroup } from '@angular/forms';
import { MAT_DIALOG_DATA } from '@angular/material/dialog';
import { Observable } from 'rxjs';

import { applyFieldError } from '@console/core/api-error';
import { AuthService, Severity } from '@console/core/auth';
import { SEVERITY_LABELS } from '@console/shared/alerts/alerts-api';
import { AlertRule, EventRule, RulesApi } from '@console/shared/rules/rules-api';
import { scopeChoices } from '@console/shared/rules/scope-targets';
import { DialogSubmission } from '@console/ui/submission';

/** What opens a rule dialog: edit `rule` (its key and place stay), or override `overrideOf` at a place to pick. */
export interface RuleDialogData<T> {
  rule?: T;
  overrideOf?: T;
}

/**
 * What the alert and event rule dialogs share: the rule they start from, where a new one may go,
 * the heading, and sending (busy while it runs; closed with the saved rule; a refused field marked).
 */
@Directive()
export abstract class RuleDialog<T extends AlertRule | EventRule> {
  protected readonly api = inject(RulesApi);
  protected readonly data = inject<RuleDialogData<T>>(MAT_DIALOG_DATA);
  protected readonly auth = inject(AuthService);
  protected readonly editing = this.data.rule ?? null;
  protected readonly base = this.data.rule ?? this.data.overrideOf ?? null;
  /** The key is the rule's own when editing and the global rule's when overriding. */
  protected readonly keyFixed = !!(this.data.overrideOf || this.editing);
  protected readonly severities = Object.keys(SEVERITY_LABELS) as Severity[];
  protected readonly severityLabels = SEVERITY_LABELS;
  protected readonly scopeChoices = scopeChoices(!!this.data.overrideOf, this.auth.isAdmin());
  protected readonly submission = new DialogSubmission<T>();

  protected heading(kind: 'alert' | 'event'): string {
    if (this.editing) return `Edit ${this.editing.key}`;
    return this.data.overrideOf ? `Override ${this.data.overrideOf.key}` : `New ${kind} rule`;
  }

  protected send(request: Observable<T>, form: FormGroup): void {
    this.submission.save(request, (err) => applyFieldError(form, err));
  }
}
