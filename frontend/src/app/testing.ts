import { provideHttpClient, withInterceptors } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting, TestRequest } from '@angular/common/http/testing';
import { EnvironmentProviders, Provider, provideZonelessChangeDetection, Type } from '@angular/core';
import { ComponentType } from '@angular/cdk/portal';
import { ComponentFixture, TestBed } from '@angular/core/testing';
import { MATERIAL_ANIMATIONS } from '@angular/material/core';
import { MatDialog, MatDialogRef } from '@angular/material/dialog';
import { provideRouter, Routes, withComponentInputBinding } from '@angular/router';

import { AuthService, User } from './core/auth';
import { csrfInterceptor } from './core/csrf-interceptor';
import { sessionInterceptor } from './core/session-interceptor';

/** What the app provides, for specs: zoneless, the real interceptors over a testing backend, no animations. */
export function provideForTests(routes: Routes = []): (Provider | EnvironmentProviders)[] {
  return [
    provideZonelessChangeDetection(),
    provideHttpClient(withInterceptors([csrfInterceptor, sessionInterceptor])),
    provideHttpClientTesting(),
    provideRouter(routes, withComponentInputBinding()),
    { provide: MATERIAL_ANIMATIONS, useValue: { animationsDisabled: true } },
  ];
}

type Match = Parameters<HttpTestingController['match']>[0];

/**
 * The one request matching `match`, waiting a few event-loop turns for it: guards, lazy routes and
 * dialogs send theirs a little after the action that causes them.
 */
export async function nextRequest(http: HttpTestingController, match: Match): Promise<TestRequest> {
  for (let turn = 0; turn < 50; turn++) {
    const found = http.match(match);
    if (found.length > 1) throw new Error(`Expected one request, got ${found.length}`);
    if (found.length === 1) return found[0];
    await new Promise((resolve) => setTimeout(resolve));
  }
  throw new Error(`No request matched ${JSON.stringify(match)}`);
}

/** Types into an input or textarea the way a user does (value, then the input and blur events). */
export function typeInto(input: HTMLInputElement | null, value: string): void {
  if (!input) throw new Error('No such input');
  input.value = value;
  input.dispatchEvent(new Event('input'));
  input.dispatchEvent(new Event('blur'));
}

/** Runs change detection and waits for pending work (zoneless). */
export async function settle(fixture: ComponentFixture<unknown>): Promise<void> {
  fixture.detectChanges();
  await fixture.whenStable();
}

/** Text of the overlay layer (dialogs, snack bars, menus), which lives outside the fixture. */
export function overlayText(): string {
  return document.querySelector('.cdk-overlay-container')?.textContent ?? '';
}

/** The button whose visible text is `label`, in `root` (default: the whole document, overlays included). */
export function buttonByText(label: string, root: ParentNode = document): HTMLButtonElement {
  const button = Array.from(root.querySelectorAll<HTMLButtonElement>('button')).find(
    (b) => b.textContent?.trim() === label,
  );
  if (!button) throw new Error(`No button "${label}"`);
  return button;
}

/** A few event-loop turns: what a dialog or an overlay needs to open, close or take a click. */
export function turn(ms = 20): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The open dialog's container (dialogs live in the overlay, outside any fixture). */
export function dialogElement(): HTMLElement {
  const container = document.querySelector<HTMLElement>('mat-dialog-container');
  if (!container) throw new Error('No dialog is open');
  return container;
}

/** Opens `component` as a dialog with `data`, for an account like `user`; returns it and the testing backend. */
export async function openDialogForTests<C, D, R = unknown>(
  component: ComponentType<C>,
  data: D,
  user: User,
): Promise<{ ref: MatDialogRef<C, R>; http: HttpTestingController }> {
  TestBed.configureTestingModule({ providers: provideForTests() });
  const http = TestBed.inject(HttpTestingController);
  TestBed.inject(AuthService).updateUser(user);
  const ref = TestBed.inject(MatDialog).open<C, D, R>(component, { data });
  await turn();
  return { ref, http };
}

/** Creates `component` for an account like `user` (none: signed out); returns its fixture and the testing backend. */
export function renderForTests<C>(
  component: Type<C>,
  user?: User,
): { fixture: ComponentFixture<C>; http: HttpTestingController } {
  TestBed.configureTestingModule({ providers: provideForTests() });
  const http = TestBed.inject(HttpTestingController);
  if (user) TestBed.inject(AuthService).updateUser(user);
  return { fixture: TestBed.createComponent(component), http };
}

/**
 * Renders a page that first reads one thing (its list, its settings) and answers that read with
 * `body`; the page has settled on the answer.
 */
export async function renderAnsweredForTests<C>(
  component: Type<C>,
  user: User | undefined,
  url: string,
  body: unknown,
): Promise<{ fixture: ComponentFixture<C>; http: HttpTestingController }> {
  const rendered = renderForTests(component, user);
  await settle(rendered.fixture);
  (await nextRequest(rendered.http, { method: 'GET', url })).flush(body as object);
  await settle(rendered.fixture);
  return rendered;
}

/** Opens the mat-select marked `data-testid="<testid>"` inside `root`; returns its options' labels. */
export async function openSelect(
  fixture: ComponentFixture<unknown>,
  root: ParentNode,
  testid: string,
): Promise<string[]> {
  const trigger = root.querySelector<HTMLElement>(`[data-testid="${testid}"] .mat-mdc-select-trigger`);
  if (!trigger) throw new Error(`No select "${testid}"`);
  trigger.click();
  await settle(fixture);
  return Array.from(document.querySelectorAll('mat-option'), (o) => o.textContent?.trim() ?? '');
}

/** Clicks the option labelled `label` of the open select (options live in the overlay). */
export async function chooseOption(fixture: ComponentFixture<unknown>, label: string): Promise<void> {
  const option = Array.from(document.querySelectorAll<HTMLElement>('mat-option')).find(
    (o) => o.textContent?.trim() === label,
  );
  if (!option) throw new Error(`No option "${label}"`);
  option.click();
  await settle(fixture);
}

/** Opens the select `testid` inside `root` and picks `label`. */
export async function pickOption(
  fixture: ComponentFixture<unknown>,
  root: ParentNode,
  testid: string,
  label: string,
): Promise<void> {
  await openSelect(fixture, root, testid);
  await chooseOption(fixture, label);
}
