import { Clipboard } from '@angular/cdk/clipboard';
import { HttpTestingController } from '@angular/common/http/testing';
import { ComponentFixture, TestBed } from '@angular/core/testing';

import { User } from '@console/core/auth';
import { userBody } from '@console/core/auth-testing';
import { buttonByText, nextRequest, overlayText, settle, typeInto, renderForTests } from '@console/testing';
import { AGENT_SETTINGS_URL } from '@console/shared/agent-settings/agent-settings-api';
import { installCommand } from './cluster-enrollment';
import { timeZones } from './customer-dialog';
import { Cluster, CLUSTERS_URL, Customer, CUSTOMERS_URL } from '@console/shared/customers/customers-api';
import { customerBody } from '@console/shared/customers/customers-testing';
import { CustomersPage } from './customers-page';
import { AGENT_VERSION_URL, ClusterEnrollment, ENROLLMENT_URL, enrollmentLimitUrl } from './enrollment-api';

/** prod (cluster 100) at its limit of 3, with two hosts refused. */
function atLimit(overrides: Partial<ClusterEnrollment> = {}): ClusterEnrollment {
  return {
    clusterId: 100,
    customerId: 10,
    hourlyLimit: 3,
    defaultLimit: 3,
    raise: null,
    enrolledLastHour: 3,
    refusedLastHour: { hosts: 2, attempts: 7, hourlyLimit: 2, otherCustomer: 0, lastAt: '2026-11-26T05:00:00.000Z' },
    ...overrides,
  };
}

const customer = (overrides: Partial<Customer> = {}): Customer =>
  customerBody({ timeZone: 'Europe/Berlin', createdAt: '2026-01-01T00:00:00.000Z', ...overrides });

const KEY = 'k3y_AbC-123';

describe('CustomersPage', () => {
  let fixture: ComponentFixture<CustomersPage>;
  let http: HttpTestingController;

  const acme = customer();
  const globex = customer({ id: 20, name: 'Globex', active: false, timeZone: 'UTC', notes: 'Contract ends in March' });
  const prod: Cluster = { id: 100, name: 'prod', customerId: 10, enrollmentKey: KEY };
  const lab: Cluster = { id: 101, name: 'lab', customerId: 10, enrollmentKey: 'other' };

  async function render(
    user: User,
    customers: Customer[],
    clusters: Cluster[],
    enrollment: ClusterEnrollment[] = [],
    builds: readonly string[] = ['x86_64', 'aarch64'],
  ): Promise<void> {
    ({ fixture, http } = renderForTests(CustomersPage, user));
    await settle(fixture);
    await answer(customers, clusters);
    http.expectOne({ method: 'GET', url: ENROLLMENT_URL }).flush(enrollment);
    answerAgentBuilds(builds);
    await settle(fixture);
  }

  /** /api/agent/version per architecture: an offer for those with a build, 404 for the rest. */
  function answerAgentBuilds(builds: readonly string[]): void {
    for (const request of http.match((r) => r.url === AGENT_VERSION_URL)) {
      const arch = request.request.params.get('arch') ?? '';
      if (builds.includes(arch))
        request.flush({ version: '0.1.0', url: `/api/agent/download/0.1.0/${arch}`, sha256: '0' });
      else request.flush({ error: 'No agent build available' }, { status: 404, statusText: 'Not Found' });
    }
  }

  async function answer(customers: Customer[], clusters: Cluster[]): Promise<void> {
    http.expectOne({ method: 'GET', url: CUSTOMERS_URL }).flush(customers);
    http.expectOne({ method: 'GET', url: CLUSTERS_URL }).flush(clusters);
    await settle(fixture);
  }

  afterEach(() => http?.verify());

  const page = (): HTMLElement => fixture.nativeElement;
  const dialog = () => document.querySelector('mat-dialog-container') as HTMLElement;
  const sections = () => Array.from(page().querySelectorAll<HTMLElement>('[data-testid="customer"]'));
  const clusterNames = (section: HTMLElement) =>
    Array.from(section.querySelectorAll('[data-testid="cluster"] h3'), (h) => h.textContent?.trim());

  async function click(element: HTMLElement | null): Promise<void> {
    element!.click();
    await settle(fixture);
  }

  it('lists customers by name with their time zone, notes, state and clusters', async () => {
    await render(userBody(), [globex, acme], [prod, lab]);

    expect(sections().map((s) => s.querySelector('h2')?.firstChild?.textContent?.trim())).toEqual(['Acme', 'Globex']);
    expect(clusterNames(sections()[0])).toEqual(['lab', 'prod']);
    expect(sections()[0].querySelector('.meta')?.textContent).toContain('Europe/Berlin');
    expect(sections()[1].querySelector('[data-testid="inactive"]')).not.toBeNull();
    expect(sections()[1].querySelector('.notes')?.textContent).toContain('Contract ends in March');
    expect(sections()[1].querySelector('[data-testid="no-clusters"]')?.textContent).toContain('No clusters yet');
  });

  it('says when the server has no agent build for the install command, and how to add one', async () => {
    await render(userBody(), [acme], [prod], [], []);
    const note = page().querySelector('[data-testid="no-agent-build"]')?.textContent ?? '';
    expect(note).toContain('no agent build');
    expect(note).toContain('npm run build:agent');
    expect(note).toContain('AGENT_DIST_DIR');
  });

  it('names the architectures with a build when one is missing', async () => {
    await render(userBody(), [acme], [prod], [], ['x86_64']);
    expect(page().querySelector('[data-testid="no-agent-build"]')).toBeNull();
    expect(page().querySelector('[data-testid="agent-builds"]')?.textContent).toContain('x86_64 only');
  });

  it("shows a cluster's enrollment key and the install command that uses it", async () => {
    await render(userBody(), [acme], [prod]);
    const cluster = page().querySelector('[data-testid="cluster"]')!;
    const command = `printf 'Argus-Enrollment-Key: %s\\n' '${KEY}' | curl -fsSL -H @- '${location.origin}/api/agent/install.sh' | sh`;

    expect(cluster.querySelector('[data-testid="enrollment-key"]')?.textContent?.trim()).toBe(KEY);
    expect(cluster.querySelector('[data-testid="install-command"]')?.textContent?.trim()).toBe(command);
    expect(cluster.querySelector('[data-testid="no-agent-build"]')).toBeNull();
    expect(cluster.querySelector('[data-testid="agent-builds"]')).toBeNull();
    expect(installCommand('https://argus.example.com', "a'b")).toBe(
      "printf 'Argus-Enrollment-Key: %s\\n' 'a'\\''b' | curl -fsSL -H @- 'https://argus.example.com/api/agent/install.sh' | sh",
    );

    const copy = spyOn(TestBed.inject(Clipboard), 'copy').and.returnValue(true);
    await click(cluster.querySelector('button[aria-label="Copy the install command of prod"]'));
    expect(copy).toHaveBeenCalledWith(command);
    expect(document.querySelector('mat-snack-bar-container')?.textContent).toContain('Install command copied');

    await click(cluster.querySelector('button[aria-label="Copy the enrollment key of prod"]'));
    expect(copy).toHaveBeenCalledWith(KEY);
  });

  it('rotates the key only after a confirmation that the old one stops enrolling', async () => {
    await render(userBody(), [acme], [prod]);

    await click(buttonByText('Rotate key', page()));
    expect(overlayText()).toContain('The old key stops enrolling new agents');
    await click(buttonByText('Cancel', dialog()));
    http.expectNone({ method: 'POST' });

    await click(buttonByText('Rotate key', page()));
    await click(buttonByText('Rotate key', dialog()));
    const rotated = { ...prod, enrollmentKey: 'n3w-key' };
    http.expectOne({ method: 'POST', url: `${CLUSTERS_URL}/100/enrollment-key` }).flush(rotated);
    await answer([acme], [rotated]);

    expect(page().querySelector('[data-testid="enrollment-key"]')?.textContent?.trim()).toBe('n3w-key');
    expect(page().querySelector('[data-testid="install-command"]')?.textContent).toContain("'n3w-key' | curl");
    expect(document.querySelector('mat-snack-bar-container')?.textContent).toContain('New enrollment key for prod');
  });

  it('shows a viewer the clusters without keys or actions', async () => {
    await render(userBody({ role: 'VIEWER', customerIds: [10] }), [acme], [{ id: 100, name: 'prod', customerId: 10 }]);

    expect(clusterNames(sections()[0])).toEqual(['prod']);
    expect(page().querySelector('argus-cluster-enrollment')).toBeNull();
    expect(Array.from(page().querySelectorAll('button'), (b) => b.textContent?.trim())).toEqual(['Agent settings']);
  });

  it("unfolds a cluster's agent settings on demand, read-only for a viewer", async () => {
    await render(userBody({ role: 'VIEWER', customerIds: [10] }), [acme], [{ id: 100, name: 'prod', customerId: 10 }]);
    expect(page().querySelector('argus-agent-settings-editor')).toBeNull();

    await click(buttonByText('Agent settings', page()));
    (await nextRequest(http, { method: 'GET', url: `${AGENT_SETTINGS_URL}?cluster=100` })).flush({
      settings: [
        { id: 1, scope: { type: 'cluster', id: 100 }, key: 'log.level', secret: false, value: 'info', updatedAt: '' },
      ],
    });
    await settle(fixture);

    const editor = page().querySelector('argus-agent-settings-editor')!;
    expect(editor.textContent).toContain('log.level');
    expect(editor.querySelectorAll('button').length).withContext('no writes for a viewer').toBe(0);
  });

  it('lets an operator manage the clusters of granted customers only, never the customers', async () => {
    const initech = customer({ id: 30, name: 'Initech' });
    await render(userBody({ role: 'OPERATOR', customerIds: [10] }), [acme, initech], [prod]);
    const [granted, other] = sections();

    expect(() => buttonByText('Add customer', page())).toThrow();
    expect(granted.querySelector('button[aria-label="Edit Acme"]')).toBeNull();
    expect(buttonByText('Add cluster', granted)).toBeTruthy();
    expect(granted.querySelector('button[aria-label="Rename prod"]')).not.toBeNull();
    expect(other.querySelectorAll('button').length).toBe(0);
  });

  it('adds a cluster to a customer', async () => {
    await render(userBody(), [acme], []);

    await click(buttonByText('Add cluster', page()));
    typeInto(dialog().querySelector('input'), ' staging ');
    await click(buttonByText('Add cluster', dialog()));

    const post = http.expectOne({ method: 'POST', url: CLUSTERS_URL });
    expect(post.request.body).toEqual({ customerId: 10, name: 'staging' });
    const staging = { id: 102, name: 'staging', customerId: 10, enrollmentKey: 'k' };
    post.flush(staging, { status: 201, statusText: 'Created' });
    await answer([acme], [staging]);

    expect(clusterNames(sections()[0])).toEqual(['staging']);
    expect(document.querySelector('mat-dialog-container')).toBeNull();
  });

  it("keeps the cluster dialog open with the server's refusal", async () => {
    await render(userBody(), [acme], [prod]);

    await click(page().querySelector('button[aria-label="Rename prod"]'));
    typeInto(dialog().querySelector('input'), 'lab');
    await click(buttonByText('Rename', dialog()));
    http
      .expectOne({ method: 'PATCH', url: `${CLUSTERS_URL}/100` })
      .flush({ error: 'A cluster of this name exists', code: 'conflict' }, { status: 409, statusText: 'Conflict' });
    await settle(fixture);

    expect(dialog().querySelector('[role="alert"]')?.textContent).toContain('A cluster of this name exists');
  });

  it('deletes a cluster after saying its systems stay', async () => {
    await render(userBody(), [acme], [prod]);

    await click(page().querySelector('button[aria-label="Delete prod"]'));
    expect(overlayText()).toContain('Its systems stay, without a cluster');
    await click(buttonByText('Delete', dialog()));
    http
      .expectOne({ method: 'DELETE', url: `${CLUSTERS_URL}/100` })
      .flush(null, { status: 204, statusText: 'No Content' });
    await answer([acme], []);

    expect(clusterNames(sections()[0])).toEqual([]);
  });

  it('adds a customer with a time zone picked from the list', async () => {
    await render(userBody(), [], []);
    expect(page().querySelector('[data-testid="empty"]')?.textContent).toContain('No customers yet');

    await click(buttonByText('Add customer', page()));
    const input = (name: string) => dialog().querySelector<HTMLInputElement>(`[formcontrolname="${name}"]`);
    typeInto(input('name'), 'Umbrella');
    typeInto(input('timeZone'), 'Europe/Berl');
    await click(buttonByText('Add customer', dialog()));
    http.expectNone({ method: 'POST', url: CUSTOMERS_URL });
    expect(dialog().textContent).toContain('Pick a time zone from the list');

    input('timeZone')!.focus();
    typeInto(input('timeZone'), 'berlin');
    await settle(fixture);
    const options = Array.from(document.querySelectorAll<HTMLElement>('mat-option'), (o) => o.textContent?.trim());
    expect(options).toEqual(['Europe/Berlin']);
    await click(document.querySelector<HTMLElement>('mat-option'));
    await click(buttonByText('Add customer', dialog()));

    const post = http.expectOne({ method: 'POST', url: CUSTOMERS_URL });
    expect(post.request.body).toEqual({ name: 'Umbrella', notes: '', active: true, timeZone: 'Europe/Berlin' });
    const created = customer({ id: 40, name: 'Umbrella' });
    post.flush(created, { status: 201, statusText: 'Created' });
    await answer([created], []);

    expect(document.querySelector('mat-snack-bar-container')?.textContent).toContain('Umbrella added');
  });

  it('edits only what changed, and deletes a customer after warning about its systems', async () => {
    await render(userBody(), [acme], [prod, lab]);

    await click(page().querySelector('button[aria-label="Edit Acme"]'));
    await click(dialog().querySelector('mat-slide-toggle button'));
    await click(buttonByText('Save', dialog()));
    const patch = http.expectOne({ method: 'PATCH', url: `${CUSTOMERS_URL}/10` });
    expect(patch.request.body).toEqual({ active: false });
    patch.flush({ ...acme, active: false });
    await answer([{ ...acme, active: false }], [prod, lab]);

    await click(page().querySelector('button[aria-label="Delete Acme"]'));
    expect(overlayText()).toContain('Its 2 clusters, all its systems and their whole history are deleted');
    await click(buttonByText('Delete', dialog()));
    http
      .expectOne({ method: 'DELETE', url: `${CUSTOMERS_URL}/10` })
      .flush(null, { status: 204, statusText: 'No Content' });
    await answer([], []);

    expect(sections().length).toBe(0);
  });

  it('shows per cluster the enrolments of the last hour and the hosts refused, and why', async () => {
    await render(userBody({ role: 'OPERATOR', customerIds: [10] }), [acme], [prod, lab], [atLimit()]);
    const [labCluster, prodCluster] = Array.from(page().querySelectorAll<HTMLElement>('[data-testid="cluster"]'));

    expect(prodCluster.querySelector('[data-testid="enrollment-figures"]')?.textContent).toContain(
      '3 of 3 new systems enrolled in the last hour',
    );
    expect(prodCluster.querySelector('[data-testid="enrollment-refused"]')?.textContent?.trim()).toBe(
      '2 hosts refused in the last hour (7 attempts): 2 over the hourly limit.',
    );
    expect(labCluster.querySelector('argus-cluster-enrollment-figures')).withContext('no figures sent').toBeNull();
    expect(prodCluster.querySelector('[data-testid="enrollment-limit-input"]'))
      .withContext('only an ADMIN raises the limit')
      .toBeNull();
  });

  it("lets an ADMIN raise a cluster's limit for the next hour, and shows the raise", async () => {
    await render(userBody(), [acme], [prod], [atLimit()]);
    const input = page().querySelector<HTMLInputElement>('[data-testid="enrollment-limit-input"]')!;
    expect(page().querySelector(`label[for="${input.id}"]`)?.textContent).toContain('Hourly limit for the next hour');
    expect(input.valueAsNumber).withContext('the limit in effect, as the figure beside it says').toBe(3);

    typeInto(input, '50');
    await click(buttonByText('Raise for 1 hour', page()));
    const post = http.expectOne({ method: 'POST', url: enrollmentLimitUrl(100) });
    expect(post.request.body).toEqual({ limit: 50 });
    const raised = atLimit({
      hourlyLimit: 50,
      raise: { hourlyLimit: 50, until: '2026-11-26T06:00:00.000Z', by: 'ada@example.com' },
    });
    post.flush(raised);
    http.expectOne({ method: 'GET', url: ENROLLMENT_URL }).flush([raised]);
    await settle(fixture);

    expect(document.querySelector('mat-snack-bar-container')?.textContent).toContain(
      'prod enrols up to 50 new systems an hour for the next hour',
    );
    expect(page().querySelector('[data-testid="enrollment-figures"]')?.textContent).toContain('3 of 50');
    expect(page().querySelector('[data-testid="enrollment-raise"]')?.textContent).toContain('Limit raised to 50 until');
  });

  it("shows the server's refusal of a raise", async () => {
    await render(userBody(), [acme], [prod], [atLimit()]);
    typeInto(page().querySelector<HTMLInputElement>('[data-testid="enrollment-limit-input"]'), '2');
    await click(buttonByText('Raise for 1 hour', page()));
    http
      .expectOne({ method: 'POST', url: enrollmentLimitUrl(100) })
      .flush(
        { error: 'limit: must be above the limit of AGENT_ENROLL_PER_CLUSTER_PER_HOUR (3) to raise it' },
        { status: 400, statusText: 'Bad Request' },
      );
    await settle(fixture);

    expect(document.querySelector('mat-snack-bar-container')?.textContent).toContain('limit: must be above');
  });

  it('offers UTC first among the time zones', () => {
    const zones = timeZones();

    expect(zones[0]).toBe('UTC');
    expect(zones).toContain('Europe/Berlin');
    expect(timeZones('Mars/Olympus')[0]).toBe('Mars/Olympus');
  });
});
