import { TestBed } from '@angular/core/testing';

import { ThemeService } from './theme';

describe('ThemeService', () => {
  const root = document.documentElement;

  beforeEach(() => {
    localStorage.removeItem('argus.theme');
    root.style.colorScheme = '';
  });

  afterEach(() => {
    localStorage.removeItem('argus.theme');
    root.style.colorScheme = '';
  });

  function service(): ThemeService {
    const theme = TestBed.inject(ThemeService);
    TestBed.tick();
    return theme;
  }

  it('follows the system setting until the user picks one', () => {
    const theme = service();

    expect(theme.choice()).toBe('system');
    expect(root.style.colorScheme).toBe('');
    expect(theme.dark()).toBe(matchMedia('(prefers-color-scheme: dark)').matches);
  });

  it('shows the console dark when chosen, and remembers it in this browser', () => {
    const theme = service();

    theme.choose('dark');
    TestBed.tick();

    expect(theme.dark()).toBeTrue();
    expect(root.style.colorScheme).toBe('dark');
    expect(getComputedStyle(root).colorScheme).toBe('dark');
    expect(localStorage.getItem('argus.theme')).toBe('dark');
  });

  it('starts with the remembered choice', () => {
    localStorage.setItem('argus.theme', 'light');
    const theme = service();

    expect(theme.choice()).toBe('light');
    expect(theme.dark()).toBeFalse();
    expect(root.style.colorScheme).toBe('light');
  });

  it('goes back to the system setting and forgets the choice', () => {
    const theme = service();
    theme.choose('dark');
    TestBed.tick();

    theme.choose('system');
    TestBed.tick();

    expect(root.style.colorScheme).toBe('');
    expect(localStorage.getItem('argus.theme')).toBeNull();
  });

  it('ignores a stored value it does not know', () => {
    localStorage.setItem('argus.theme', 'sepia');

    expect(service().choice()).toBe('system');
  });
});
