import { HttpTestingController } from '@angular/common/http/testing';
import { ComponentFixture } from '@angular/core/testing';

import { userBody } from '@console/core/auth-testing';
import { buttonByText, settle, renderForTests } from '@console/testing';
import {
  AGENT_ROLLOUT_URL,
  AGENT_ROLLOUTS_URL,
  AgentRollout,
  resumeRolloutUrl,
  retryUpdateUrl,
  RolloutMode,
} from '@console/shared/agent-rollout/agent-rollout-api';
import { AgentRolloutFailure } from '@console/shared/agent-rollout/agent-rollout-failure';
import { AgentRolloutPage } from './agent-rollout-page';

describe('AgentRolloutPage', () => {
  let fixture: ComponentFixture<AgentRolloutPage>;
  let http: HttpTestingController;

  const halted: AgentRollout = {
    id: 7,
    customerId: 3,
    customerName: 'Acme GmbH',
    arch: 'x86_64',
    version: '2.28.1',
    state: 'halted',
    canary: { id: 42, name: 'web-1' },
    startedAt: '2026-11-21T10:00:00.000Z',
    changedAt: '2026-11-21T10:03:00.000Z',
  };

  async function render(mode: RolloutMode, rollouts: AgentRollout[] = []): Promise<void> {
    ({ fixture, http } = renderForTests(AgentRolloutPage, userBody()));
    http.expectOne({ method: 'GET', url: AGENT_ROLLOUT_URL }).flush({ mode });
    await settle(fixture);
    http.expectOne({ method: 'GET', url: AGENT_ROLLOUTS_URL }).flush({ rollouts });
    await settle(fixture);
  }

  afterEach(() => http?.verify());

  const page = (): HTMLElement => fixture.nativeElement;
  const radio = (mode: RolloutMode) =>
    page().querySelector<HTMLInputElement>(`[data-testid="mode-${mode}"] input[type="radio"]`)!;
  const saveButton = () => buttonByText('Save', page());

  it('shows the stored mode and has nothing to save until another is picked', async () => {
    await render('canary');

    expect(radio('canary').checked).toBeTrue();
    expect(radio('all').checked).toBeFalse();
    expect(page().textContent).toContain('One system per customer');
    expect(saveButton().disabled).toBeTrue();
  });

  it('saves the picked mode', async () => {
    await render('all');

    radio('canary').click();
    await settle(fixture);
    expect(saveButton().disabled).toBeFalse();
    saveButton().click();
    await settle(fixture);

    const put = http.expectOne({ method: 'PUT', url: AGENT_ROLLOUT_URL });
    expect(put.request.body).toEqual({ mode: 'canary' });
    put.flush({ mode: 'canary' });
    await settle(fixture);
    expect(saveButton().disabled).withContext('saved: nothing left to save').toBeTrue();
  });

  it('lists the canary rollouts and resumes a halted one', async () => {
    const released: AgentRollout = { ...halted, id: 8, customerName: 'Beta AG', state: 'released' };
    await render('canary', [halted, released]);

    const row = (id: number) => page().querySelector<HTMLElement>(`[data-testid="rollout-${id}"]`)!;
    expect(row(7).textContent).toContain('Acme GmbH');
    expect(row(7).textContent).toContain('web-1');
    expect(row(7).querySelector('[data-testid="state"]')?.textContent).toContain('Halted');
    expect(row(8).querySelector('button')).withContext('only a halted rollout resumes').toBeNull();

    buttonByText('Resume', row(7)).click();
    await settle(fixture);
    http.expectOne({ method: 'POST', url: resumeRolloutUrl(7) }).flush({ ...halted, state: 'canary' });
    await settle(fixture);

    expect(row(7).querySelector('[data-testid="state"]')?.textContent).toContain('Waiting for the canary');
    expect(row(7).querySelector('button')).toBeNull();
  });

  it('says when there is no canary rollout yet', async () => {
    await render('all');
    expect(page().querySelector('[data-testid="no-rollouts"]')).not.toBeNull();
  });

  it('shows why saving failed', async () => {
    await render('all');
    radio('canary').click();
    await settle(fixture);
    saveButton().click();
    await settle(fixture);

    http
      .expectOne({ method: 'PUT', url: AGENT_ROLLOUT_URL })
      .flush({ error: 'Your role does not allow this' }, { status: 403, statusText: 'Forbidden' });
    await settle(fixture);

    expect(page().querySelector('[role="alert"]')?.textContent).toContain('Your role does not allow this');
  });
});

describe('AgentRolloutFailure', () => {
  let fixture: ComponentFixture<AgentRolloutFailure>;
  let http: HttpTestingController;

  async function render(role: 'ADMIN' | 'OPERATOR', failedVersion: string | null): Promise<void> {
    ({ fixture, http } = renderForTests(AgentRolloutFailure, userBody({ role, customerIds: [10] })));
    fixture.componentRef.setInput('systemId', 7);
    fixture.componentRef.setInput('failedVersion', failedVersion);
    await settle(fixture);
  }

  afterEach(() => http?.verify());

  const notice = () => (fixture.nativeElement as HTMLElement).querySelector('[data-testid="update-failed"]');

  it('says nothing while no update failed', async () => {
    await render('ADMIN', null);

    expect(notice()).toBeNull();
  });

  it('names the failed build, and lets an administrator retry it', async () => {
    await render('ADMIN', '2.27.0');
    expect(notice()?.textContent).toContain('The agent update to 2.27.0 failed');

    buttonByText('Retry update', notice()!).click();
    await settle(fixture);
    http.expectOne({ method: 'POST', url: retryUpdateUrl(7) }).flush(null, { status: 204, statusText: 'No Content' });
    await settle(fixture);

    expect(notice()).withContext('hidden once retried').toBeNull();

    // the system's next answer: cleared, and later failed again
    fixture.componentRef.setInput('failedVersion', null);
    await settle(fixture);
    fixture.componentRef.setInput('failedVersion', '2.27.0');
    await settle(fixture);
    expect(notice()).withContext('a new failure shows again').not.toBeNull();
  });

  it('offers the retry to administrators only', async () => {
    await render('OPERATOR', '2.27.0');

    expect(notice()?.textContent).toContain('2.27.0');
    expect(notice()?.querySelector('button')).toBeNull();
  });
});
