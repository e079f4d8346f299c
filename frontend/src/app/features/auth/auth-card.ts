import { ChangeDetectionStrategy, Component, input } from '@angular/core';
import { MatCardModule } from '@angular/material/card';

/** The centred card the sign-in pages share (they render without the side navigation). */
@Component({
  selector: 'argus-auth-card',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatCardModule],
  template: `
    <mat-card appearance="outlined" class="card">
      <header>
        <img src="favicon.svg" alt="" width="40" height="40" />
        <h1>{{ heading() }}</h1>
        @if (intro()) {
          <p>{{ intro() }}</p>
        }
      </header>
      <ng-content />
    </mat-card>
  `,
  styles: `
    :host {
      display: flex;
      justify-content: center;
      padding: 48px 16px;
    }
    .card {
      width: 100%;
      max-width: 420px;
      padding: 32px 28px 24px;
      box-sizing: border-box;
    }
    header {
      text-align: center;
      margin-bottom: 24px;
    }
    h1 {
      font: var(--mat-sys-headline-small);
      margin: 12px 0 4px;
    }
    p {
      margin: 0;
      color: var(--mat-sys-on-surface-variant);
    }
  `,
})
export class AuthCard {
  readonly heading = input.required<string>();
  readonly intro = input('');
}
