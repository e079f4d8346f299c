import { BreakpointObserver } from '@angular/cdk/layout';
import { CdkVirtualScrollableElement } from '@angular/cdk/scrolling';
import { ChangeDetectionStrategy, Component, computed, inject, viewChild } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { MatButtonModule } from '@angular/material/button';
import { MatDialog } from '@angular/material/dialog';
import { MatDividerModule } from '@angular/material/divider';
import { MatListModule } from '@angular/material/list';
import { MatMenuModule } from '@angular/material/menu';
import { MatSidenav, MatSidenavModule } from '@angular/material/sidenav';
import { MatToolbarModule } from '@angular/material/toolbar';
import { MatTooltipModule } from '@angular/material/tooltip';
import { NavigationEnd, Router, RouterLink, RouterLinkActive, RouterOutlet } from '@angular/router';
import { filter, map } from 'rxjs';

import { AuthService, LEAVE_CONSOLE, roleLabel } from './core/auth';
import { isBareLayout } from './core/layout';
import { LiveService } from './core/live';
import { THEME_CHOICES, ThemeService } from './core/theme';
import { NAV, NAV_GROUPS } from './nav';
import { Icon } from './ui/icon';
import type { AlertCounts } from '@contracts/live';

/** `alerts.counts` snapshot data (docs/api.md "Live channel", contracts/live.ts). */
type OpenAlertCounts = AlertCounts;

/** The shell: toolbar, side navigation and the routed page. */
@Component({
  selector: 'argus-root',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    CdkVirtualScrollableElement,
    Icon,
    MatButtonModule,
    MatDividerModule,
    MatListModule,
    MatMenuModule,
    MatSidenavModule,
    MatToolbarModule,
    MatTooltipModule,
    RouterLink,
    RouterLinkActive,
    RouterOutlet,
  ],
  templateUrl: './app.html',
  styleUrl: './app.scss',
  host: { '(document:keydown)': 'hotkey($event)' },
})
export class App {
  private readonly router = inject(Router);
  protected readonly auth = inject(AuthService);
  private readonly leave = inject(LEAVE_CONSOLE);
  protected readonly roleLabel = roleLabel;

  private readonly dialog = inject(MatDialog);
  protected readonly theme = inject(ThemeService);
  protected readonly themeChoices = THEME_CHOICES;
  protected readonly themeLabel = computed(
    () => THEME_CHOICES.find((option) => option.value === this.theme.choice())?.label ?? '',
  );

  protected readonly live = inject(LiveService);
  /** Open alerts the account may see, kept current by the live channel (`alerts.counts`). */
  protected readonly alertCounts = toSignal(this.live.snapshot<OpenAlertCounts>('alerts.counts'), {
    initialValue: null,
  });

  /** The sidebar's groups with the entries the account's role may open; a group left empty is not drawn. */
  protected readonly navGroups = computed(() => {
    const role = this.auth.user()?.role;
    const visible = NAV.filter(
      (entry) =>
        (!entry.adminOnly || role === 'ADMIN') && (!entry.writersOnly || role === 'ADMIN' || role === 'OPERATOR'),
    );
    return NAV_GROUPS.map((label) => ({ label, entries: visible.filter((entry) => entry.group === label) })).filter(
      (group) => group.entries.length > 0,
    );
  });

  // Below 840 px (Material's compact/medium boundary) the navigation floats over the page.
  protected readonly narrow = toSignal(
    inject(BreakpointObserver)
      .observe('(max-width: 839.98px)')
      .pipe(map((state) => state.matches)),
    { initialValue: false },
  );
  protected readonly sidenavMode = computed(() => (this.narrow() ? 'over' : 'side'));
  protected readonly drawer = viewChild(MatSidenav);

  private readonly bare = toSignal(
    this.router.events.pipe(
      filter((event) => event instanceof NavigationEnd),
      map(() => isBareLayout(this.router.routerState.snapshot.root)),
    ),
    { initialValue: true },
  );
  /** Navigation only for a signed-in user on an app page; the sign-in pages stand alone. */
  protected readonly showNav = computed(() => this.auth.user() !== null && !this.bare());

  /** Signs out of Argus and, for an account of the identity provider, of the provider too (its page, then /login). */
  protected signOut(): void {
    this.auth.logout().subscribe((provider) => {
      if (provider) this.leave(provider);
      else void this.router.navigateByUrl('/login');
    });
  }

  /** The search (autocomplete, forms) loads on first use: it is not needed for the first paint. */
  protected openSearch(): void {
    void import('./shared/search/quick-search').then(({ openQuickSearch }) => openQuickSearch(this.dialog));
  }

  /** Ctrl+K (⌘K) anywhere, or "/" outside a text field, opens the quick search on the console's pages. */
  protected hotkey(event: KeyboardEvent): void {
    if (!this.showNav() || event.defaultPrevented || event.altKey) return;
    const ctrlK = (event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'k';
    const slash = event.key === '/' && !event.ctrlKey && !event.metaKey && !typing(event.target);
    if (!ctrlK && !slash) return;
    event.preventDefault();
    this.openSearch();
  }
}

/** Whether a keystroke there is text being written (a "/" in a field is a character, not a command). */
function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}
