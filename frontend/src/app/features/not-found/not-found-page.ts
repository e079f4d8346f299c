import { ChangeDetectionStrategy, Component } from '@angular/core';
import { MatButtonModule } from '@angular/material/button';
import { RouterLink } from '@angular/router';

@Component({
  selector: 'argus-not-found-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatButtonModule, RouterLink],
  template: `
    <section class="not-found">
      <p class="code" aria-hidden="true">404</p>
      <h1>Page not found</h1>
      <p>There is nothing at this address. It may have moved, or the link may be mistyped.</p>
      <a mat-flat-button routerLink="/">Back to status</a>
    </section>
  `,
  styles: `
    .not-found {
      display: flex;
      flex-direction: column;
      align-items: center;
      text-align: center;
      padding: 64px 16px;
    }
    .code {
      font: var(--mat-sys-display-large);
      color: var(--mat-sys-primary);
      margin: 0;
    }
    h1 {
      font: var(--mat-sys-headline-small);
      margin: 8px 0;
    }
    p {
      color: var(--mat-sys-on-surface-variant);
      margin: 0 0 24px;
    }
  `,
})
export class NotFoundPage {}
