import { HttpTestingController } from '@angular/common/http/testing';
import { ComponentFixture, TestBed } from '@angular/core/testing';

import { User } from '@console/core/auth';
import { userBody } from '@console/core/auth-testing';
import { buttonByText, nextRequest, overlayText, settle, typeInto, renderForTests } from '@console/testing';
import { AgentSetting, AGENT_SETTINGS_URL, AgentSettingsListing, SettingScope } from './agent-settings-api';
import { AgentSettingsEditor, SECRET_MASK } from './agent-settings-editor';

const CLUSTER: SettingScope = { type: 'cluster', id: 100 };
const SYSTEM: SettingScope = { type: 'system', id: 7 };

function setting(overrides: Partial<AgentSetting> = {}): AgentSetting {
  return {
    id: 1,
    scope: CLUSTER,
    key: 'log.level',
    secret: false,
    value: 'info',
    updatedAt: '2026-11-21T10:00:00.000Z',
    ...overrides,
  };
}

const token = setting({ id: 2, key: 'backup.token', secret: true, value: null });

describe('AgentSettingsEditor', () => {
  let fixture: ComponentFixture<AgentSettingsEditor>;
  let http: HttpTestingController;

  const listUrl = (scope: SettingScope) => `${AGENT_SETTINGS_URL}?${scope.type}=${scope.id}`;

  async function render(user: User, scope: SettingScope, listing: AgentSettingsListing): Promise<void> {
    ({ fixture, http } = renderForTests(AgentSettingsEditor, user));
    fixture.componentRef.setInput('scope', scope);
    fixture.componentRef.setInput('customerId', 10);
    fixture.componentRef.setInput('label', scope.type === 'cluster' ? 'cluster prod' : 'web-01');
    await settle(fixture);
    (await nextRequest(http, { method: 'GET', url: listUrl(scope) })).flush(listing);
    await settle(fixture);
  }

  afterEach(() => http?.verify());

  const page = (): HTMLElement => fixture.nativeElement;
  const dialog = () => document.querySelector('mat-dialog-container') as HTMLElement;
  const rows = (testId: string) =>
    Array.from(page().querySelectorAll(`[data-testid="${testId}"]`), (row) =>
      Array.from(row.querySelectorAll('td'), (cell) => cell.textContent?.trim() ?? '').filter(Boolean),
    );
  const field = (testId: string) => dialog().querySelector<HTMLInputElement>(`[data-testid="${testId}"]`);

  async function click(element: HTMLElement | null): Promise<void> {
    element!.click();
    await settle(fixture);
  }

  /** The list asked again after a change (every editor reloads). */
  async function reload(scope: SettingScope, listing: AgentSettingsListing): Promise<void> {
    (await nextRequest(http, { method: 'GET', url: listUrl(scope) })).flush(listing);
    await settle(fixture);
  }

  it('lists a cluster’s settings and shows a secret only as set, never its value', async () => {
    await render(userBody(), CLUSTER, { settings: [token, setting()] });

    expect(rows('setting')).toEqual([
      ['backup.token', SECRET_MASK],
      ['log.level', 'info'],
    ]);
    expect(page().querySelector('[data-testid="effective-settings"]')).toBeNull();
    expect(page().textContent).toContain('Sent to the agent of every system in this cluster');
  });

  it('shows a system its own settings and what is in effect, with the layer each comes from', async () => {
    await render(userBody(), SYSTEM, {
      settings: [setting({ id: 5, scope: SYSTEM, value: 'debug' })],
      effective: [
        { key: 'backup.token', secret: true, value: null, from: CLUSTER },
        { key: 'interval', secret: false, value: '30', from: CLUSTER },
        { key: 'log.level', secret: false, value: 'debug', from: SYSTEM },
      ],
    });

    expect(rows('setting')).toEqual([['log.level', 'debug']]);
    expect(rows('effective')).toEqual([
      ['backup.token', SECRET_MASK, 'Cluster'],
      ['interval', '30', 'Cluster'],
      ['log.level', 'debug', 'This system'],
    ]);
  });

  it('offers no changes to a viewer, or to an operator of another customer', async () => {
    for (const user of [
      userBody({ role: 'VIEWER', customerIds: [10] }),
      userBody({ role: 'OPERATOR', customerIds: [99] }),
    ]) {
      TestBed.resetTestingModule();
      await render(user, CLUSTER, { settings: [setting()] });

      expect(page().querySelectorAll('button').length).withContext(user.role).toBe(0);
      expect(rows('setting')).toEqual([['log.level', 'info']]);
    }
  });

  it('adds a secret setting', async () => {
    await render(userBody({ role: 'OPERATOR', customerIds: [10] }), CLUSTER, { settings: [] });
    expect(page().querySelector('[data-testid="no-settings"]')?.textContent).toContain('No settings on this cluster');

    await click(buttonByText('Add setting', page()));
    expect(overlayText()).toContain('New agent setting for cluster prod');
    typeInto(field('setting-key'), 'backup.token');
    typeInto(field('setting-value'), 's3cr3t');
    await click(dialog().querySelector<HTMLButtonElement>('[data-testid="setting-secret"] button'));
    await click(buttonByText('Add setting', dialog()));

    const post = http.expectOne({ method: 'POST', url: AGENT_SETTINGS_URL });
    expect(post.request.body).toEqual({ scope: CLUSTER, key: 'backup.token', value: 's3cr3t', secret: true });
    post.flush(token, { status: 201, statusText: 'Created' });
    await settle(fixture);
    await reload(CLUSTER, { settings: [token] });

    expect(rows('setting')).toEqual([['backup.token', SECRET_MASK]]);
    expect(page().textContent).not.toContain('s3cr3t');
  });

  it('refuses a key the server would refuse, before sending anything', async () => {
    await render(userBody(), CLUSTER, { settings: [] });
    await click(buttonByText('Add setting', page()));
    typeInto(field('setting-key'), 'Log Level');
    await click(buttonByText('Add setting', dialog()));

    http.expectNone({ method: 'POST' });
    expect(overlayText()).toContain('A-z first, then up to 63 of a-z');
  });

  it('shows the server’s refusal under the field it names', async () => {
    await render(userBody(), CLUSTER, { settings: [setting()] });
    await click(buttonByText('Add setting', page()));
    typeInto(field('setting-key'), 'log.level');
    typeInto(field('setting-value'), 'debug');
    await click(buttonByText('Add setting', dialog()));

    http
      .expectOne({ method: 'POST', url: AGENT_SETTINGS_URL })
      .flush(
        { error: 'key: must start with a-z', code: 'bad_request', details: { field: 'key' } },
        { status: 400, statusText: 'Bad Request' },
      );
    await settle(fixture);

    expect(overlayText()).toContain('Must start with a-z');
    expect(dialog()).not.toBeNull();
  });

  describe('a stored secret', () => {
    async function openEdit(): Promise<void> {
      await render(userBody(), CLUSTER, { settings: [token] });
      await click(page().querySelector<HTMLButtonElement>('button[aria-label="Replace backup.token"]'));
    }

    it('starts empty and is kept when nothing is typed', async () => {
      await openEdit();

      expect(field('setting-value')!.value).toBe('');
      expect(field('setting-value')!.placeholder).toBe('unchanged');
      expect(field('setting-key')!.disabled).toBeTrue();
      await click(buttonByText('Save', dialog()));

      const patch = http.expectOne({ method: 'PATCH', url: `${AGENT_SETTINGS_URL}/2` });
      expect(patch.request.body).toEqual({ secret: true });
      patch.flush(token);
      await settle(fixture);
      await reload(CLUSTER, { settings: [token] });
    });

    it('is replaced by a typed value', async () => {
      await openEdit();
      typeInto(field('setting-value'), 'rotated');
      await click(buttonByText('Save', dialog()));

      const patch = http.expectOne({ method: 'PATCH', url: `${AGENT_SETTINGS_URL}/2` });
      expect(patch.request.body).toEqual({ secret: true, value: 'rotated' });
      patch.flush(token);
      await settle(fixture);
      await reload(CLUSTER, { settings: [token] });
    });

    it('needs a new value to become plain: the stored one is never revealed', async () => {
      await openEdit();
      await click(dialog().querySelector<HTMLButtonElement>('[data-testid="setting-secret"] button'));
      await click(buttonByText('Save', dialog()));

      http.expectNone({ method: 'PATCH' });
      expect(overlayText()).toContain('the stored secret is never revealed');

      typeInto(field('setting-value'), 'now public');
      await click(buttonByText('Save', dialog()));
      const patch = http.expectOne({ method: 'PATCH', url: `${AGENT_SETTINGS_URL}/2` });
      expect(patch.request.body).toEqual({ secret: false, value: 'now public' });
      patch.flush(setting({ id: 2, key: 'backup.token', value: 'now public' }));
      await settle(fixture);
      await reload(CLUSTER, { settings: [setting({ id: 2, key: 'backup.token', value: 'now public' })] });
    });
  });

  it('changes a plain value, sending it as shown', async () => {
    await render(userBody(), CLUSTER, { settings: [setting()] });
    await click(page().querySelector<HTMLButtonElement>('button[aria-label="Edit log.level"]'));
    expect(field('setting-value')!.value).toBe('info');
    typeInto(field('setting-value'), 'debug');
    await click(buttonByText('Save', dialog()));

    const patch = http.expectOne({ method: 'PATCH', url: `${AGENT_SETTINGS_URL}/1` });
    expect(patch.request.body).toEqual({ secret: false, value: 'debug' });
    patch.flush(setting({ value: 'debug' }));
    await settle(fixture);
    await reload(CLUSTER, { settings: [setting({ value: 'debug' })] });
    expect(rows('setting')).toEqual([['log.level', 'debug']]);
  });

  it('deletes after asking', async () => {
    await render(userBody(), SYSTEM, { settings: [setting({ scope: SYSTEM })], effective: [] });
    await click(page().querySelector<HTMLButtonElement>('button[aria-label="Delete log.level"]'));
    expect(overlayText()).toContain('gets its cluster’s value for this key again');
    await click(buttonByText('Delete', dialog()));

    http
      .expectOne({ method: 'DELETE', url: `${AGENT_SETTINGS_URL}/1` })
      .flush(null, { status: 204, statusText: 'No Content' });
    await settle(fixture);
    await reload(SYSTEM, { settings: [], effective: [] });
    expect(page().querySelector('[data-testid="no-settings"]')).not.toBeNull();
  });
});
