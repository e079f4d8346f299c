import { ChangeDetectionStrategy, Component, computed, input } from '@angular/core';

import {
  charCount,
  matchesIdentity,
  PASSWORD_MAX_BYTES,
  PASSWORD_MIN_CHARS,
  utf8Bytes,
} from '@console/core/password-rules';
import { Icon, IconName } from './icon';

type RuleState = 'ok' | 'bad' | 'open';

interface Rule {
  text: string;
  state: RuleState;
}

const ICONS: Record<RuleState, IconName> = { ok: 'check', bad: 'close', open: 'dot' };
const SPOKEN: Record<RuleState, string> = { ok: 'met', bad: 'not met', open: '' };

/**
 * The password rules of docs/api.md as a checklist that follows what is typed. The identity rule stays
 * neutral when the form does not know the account's identifiers (reset link): the server checks it.
 */
@Component({
  selector: 'argus-password-rules',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [Icon],
  template: `
    <ul class="rules" aria-label="Password rules">
      @for (rule of rules(); track rule.text) {
        <li [class]="'rule rule--' + rule.state">
          <argus-icon [name]="icons[rule.state]" />
          <span>{{ rule.text }}</span>
          @if (spoken[rule.state]) {
            <span class="sr-only">({{ spoken[rule.state] }})</span>
          }
        </li>
      }
    </ul>
  `,
  styles: `
    .rules {
      list-style: none;
      margin: 0 0 16px;
      padding: 0;
      font: var(--mat-sys-body-small);
      color: var(--mat-sys-on-surface-variant);
    }
    .rule {
      display: flex;
      align-items: center;
      gap: 6px;
      padding: 2px 0;
    }
    argus-icon {
      width: 16px;
      height: 16px;
    }
    .rule--ok argus-icon {
      color: var(--argus-ok-icon);
    }
    .rule--bad {
      color: var(--mat-sys-error);
    }
  `,
})
export class PasswordRules {
  readonly password = input('');
  /** The account's e-mail and username; empty when unknown. */
  readonly identities = input<readonly (string | null | undefined)[]>([]);

  protected readonly icons = ICONS;
  protected readonly spoken = SPOKEN;

  protected readonly rules = computed<Rule[]>(() => {
    const password = this.password();
    const typed = password !== '';
    const known = this.identities().some((id) => !!id);
    const state = (ok: boolean, decided = typed): RuleState => (!decided ? 'open' : ok ? 'ok' : 'bad');
    return [
      { text: `At least ${PASSWORD_MIN_CHARS} characters`, state: state(charCount(password) >= PASSWORD_MIN_CHARS) },
      {
        text: `At most ${PASSWORD_MAX_BYTES} bytes (accented letters and emoji count double or more)`,
        state: state(utf8Bytes(password) <= PASSWORD_MAX_BYTES),
      },
      {
        text: 'Not the same as the e-mail address or username',
        state: state(!matchesIdentity(password, this.identities()), typed && known),
      },
    ];
  });
}
