import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { MatButtonModule } from '@angular/material/button';
import { MatDialog } from '@angular/material/dialog';

import { AuthService } from '@console/core/auth';
import { revealFragment } from '@console/core/fragment';
import { LOADING } from '@console/core/loaded';
import { Refreshing } from '@console/core/refresh';
import { mayWriteAt } from '@console/core/rights';
import { Icon } from '@console/ui/icon';
import { RowActions } from '@console/ui/row-actions';
import { askName } from '@console/ui/name-dialog';
import { AgentSettingsEditor } from '@console/shared/agent-settings/agent-settings-editor';
import { ClusterEnrollment } from './cluster-enrollment';
import { ClusterEnrollmentFigures } from './cluster-enrollment-figures';
import { EnrollmentApi } from './enrollment-api';
import { CustomerDialog, CustomerDialogData } from './customer-dialog';
import { byName, Cluster, Customer, CustomersApi, Fleet } from '@console/shared/customers/customers-api';
import { ConfirmThen } from '@console/ui/confirm-dialog';
import { FormDialog } from '@console/ui/form-dialog';
import { Notify } from '@console/ui/notify';
import { LoadState } from '@console/ui/load-state';
import { PageHeader } from '@console/ui/page-header';

interface CustomerView {
  customer: Customer;
  clusters: Cluster[];
  /** ADMIN, or an OPERATOR granted this customer: may manage its clusters and see their keys. */
  canWrite: boolean;
}

/** Customers and their clusters; administrators manage customers, writers manage clusters and enrollment keys. */
@Component({
  selector: 'argus-customers-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    PageHeader,
    AgentSettingsEditor,
    ClusterEnrollment,
    ClusterEnrollmentFigures,
    Icon,
    LoadState,
    MatButtonModule,
    RowActions,
  ],
  templateUrl: './customers-page.html',
  styleUrl: './customers-page.scss',
})
export class CustomersPage {
  private readonly api = inject(CustomersApi);
  private readonly dialog = inject(MatDialog);
  private readonly notify = inject(Notify);
  private readonly confirmThen = inject(ConfirmThen);
  private readonly formDialog = inject(FormDialog);
  private readonly auth = inject(AuthService);
  protected readonly isAdmin = this.auth.isAdmin;

  protected readonly fleet = toSignal(this.api.fleet$, { initialValue: LOADING as Refreshing<Fleet> });
  protected readonly customers = computed<CustomerView[]>(() => {
    const state = this.fleet();
    if (state.state !== 'ready') return [];
    const { customers, clusters } = state.value;
    return [...customers].sort(byName).map((customer) => ({
      customer,
      clusters: clusters.filter((c) => c.customerId === customer.id).sort(byName),
      canWrite: mayWriteAt(this.auth.user(), customer.id),
    }));
  });

  private readonly enrollmentApi = inject(EnrollmentApi);
  private readonly enrollment = toSignal(this.enrollmentApi.enrollment$, { initialValue: LOADING });
  /** The architectures with an agent build (null until known): the install commands say when there is none. */
  protected readonly agentBuilds = toSignal(this.enrollmentApi.agentBuilds(), { initialValue: null });
  /** Each cluster's enrolments of the last hour, by cluster id; empty until they arrive. */
  protected readonly enrollmentByCluster = computed(() => {
    const state = this.enrollment();
    return new Map(state.state === 'ready' ? state.value.map((entry) => [entry.clusterId, entry]) : []);
  });

  constructor() {
    // /customers#customer-12 (the quick search's link to a customer)
    revealFragment(() => this.fleet().state === 'ready');
  }

  /** Clusters whose agent settings are unfolded (loaded only then). */
  protected readonly settingsShown = signal<ReadonlySet<number>>(new Set());

  protected toggleSettings(clusterId: number): void {
    const shown = new Set(this.settingsShown());
    if (!shown.delete(clusterId)) shown.add(clusterId);
    this.settingsShown.set(shown);
  }

  protected addCustomer(): void {
    this.openCustomerDialog({}, (customer) => `${customer.name} added`);
  }

  protected editCustomer(customer: Customer): void {
    this.openCustomerDialog({ customer }, () => 'Changes saved');
  }

  protected deleteCustomer({ customer, clusters }: CustomerView): void {
    const what = clusters.length === 1 ? '1 cluster' : `${clusters.length} clusters`;
    this.confirmThen.delete({
      name: customer.name,
      message: `Its ${what}, all its systems and their whole history are deleted with it. This cannot be undone.`,
      action: () => this.api.deleteCustomer(customer.id),
      done: `${customer.name} deleted`,
    });
  }

  protected addCluster(customer: Customer): void {
    askName(this.dialog, {
      title: `New cluster for ${customer.name}`,
      label: 'Cluster name',
      hint: 'A group of hosts with one install command, e.g. “production” or “Berlin office”.',
      confirm: 'Add cluster',
      save: (name) => this.api.createCluster(customer.id, name),
    }).subscribe((cluster) => this.notify.done(`Cluster ${cluster.name} added`));
  }

  protected renameCluster(cluster: Cluster): void {
    askName(this.dialog, {
      title: `Rename ${cluster.name}`,
      label: 'Cluster name',
      value: cluster.name,
      confirm: 'Rename',
      save: (name) => this.api.renameCluster(cluster.id, name),
    }).subscribe((renamed) => this.notify.done(`Renamed to ${renamed.name}`));
  }

  protected deleteCluster(cluster: Cluster): void {
    this.confirmThen.delete({
      name: `the cluster ${cluster.name}`,
      message:
        'Its systems stay, without a cluster, and keep reporting. Its enrollment key stops working, so its ' +
        'install command enrolls no more hosts.',
      action: () => this.api.deleteCluster(cluster.id),
      done: `Cluster ${cluster.name} deleted`,
    });
  }

  private openCustomerDialog(data: CustomerDialogData, done: (customer: Customer) => string): void {
    this.formDialog.open(CustomerDialog, { data, width: '520px' }, done);
  }
}
