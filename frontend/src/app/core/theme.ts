import { DOCUMENT } from '@angular/common';
import { Injectable, computed, effect, inject, signal } from '@angular/core';

export type ThemeChoice = 'system' | 'light' | 'dark';

export const THEME_CHOICES: readonly { value: ThemeChoice; label: string }[] = [
  { value: 'system', label: 'As the system' },
  { value: 'light', label: 'Light' },
  { value: 'dark', label: 'Dark' },
];

const STORAGE_KEY = 'argus.theme';

/**
 * Light or dark: follows the system setting unless the user picked one (kept in this browser). The
 * whole palette is `light-dark()` colours under `color-scheme` (styles.scss), so choosing is setting
 * `color-scheme` on the root element; charts redraw on `dark()`.
 */
@Injectable({ providedIn: 'root' })
export class ThemeService {
  private readonly document = inject(DOCUMENT);
  private readonly window = this.document.defaultView;
  private readonly systemDark = signal(this.window?.matchMedia('(prefers-color-scheme: dark)').matches ?? false);

  readonly choice = signal<ThemeChoice>(this.stored());
  /** Whether the console is shown dark right now. */
  readonly dark = computed(() => {
    const choice = this.choice();
    return choice === 'dark' || (choice === 'system' && this.systemDark());
  });

  constructor() {
    this.window
      ?.matchMedia('(prefers-color-scheme: dark)')
      .addEventListener('change', (event) => this.systemDark.set(event.matches));
    effect(() => {
      const choice = this.choice();
      // '' gives the stylesheet's `light dark` back: the system decides
      this.document.documentElement.style.colorScheme = choice === 'system' ? '' : choice;
    });
  }

  choose(choice: ThemeChoice): void {
    this.choice.set(choice);
    try {
      if (choice === 'system') this.window?.localStorage.removeItem(STORAGE_KEY);
      else this.window?.localStorage.setItem(STORAGE_KEY, choice);
    } catch {
      // storage refused (private mode, policy): the choice holds for this page's life
    }
  }

  private stored(): ThemeChoice {
    try {
      const value = this.window?.localStorage.getItem(STORAGE_KEY);
      return value === 'light' || value === 'dark' ? value : 'system';
    } catch {
      return 'system';
    }
  }
}
