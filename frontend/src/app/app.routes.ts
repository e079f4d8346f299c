import { Routes } from '@angular/router';

import { adminGuard, loginPageGuard, setupPageGuard, signedInGuard, writerGuard } from './core/guards';
import { BARE_LAYOUT } from './core/layout';

export const routes: Routes = [
  // Sign-in pages: no navigation, reachable without a session.
  {
    path: 'login',
    title: 'Sign in',
    data: BARE_LAYOUT,
    canActivate: [loginPageGuard],
    loadComponent: () => import('./features/auth/login-page').then((m) => m.LoginPage),
  },
  {
    path: 'setup',
    title: 'Set up',
    data: BARE_LAYOUT,
    canActivate: [setupPageGuard],
    loadComponent: () => import('./features/auth/setup-page').then((m) => m.SetupPage),
  },
  {
    path: 'forgot-password',
    title: 'Forgot password',
    data: BARE_LAYOUT,
    loadComponent: () => import('./features/auth/forgot-password-page').then((m) => m.ForgotPasswordPage),
  },
  {
    path: 'reset-password',
    title: 'Choose a new password',
    data: BARE_LAYOUT,
    loadComponent: () => import('./features/auth/reset-password-page').then((m) => m.ResetPasswordPage),
  },
  // The console: every page needs a session.
  {
    path: '',
    canActivateChild: [signedInGuard],
    children: [
      {
        // the home page after sign-in: the fleet at a glance
        path: '',
        pathMatch: 'full',
        title: 'Overview',
        loadComponent: () => import('./features/overview/overview-page').then((m) => m.OverviewPage),
      },
      {
        path: 'status',
        title: 'Argus health',
        loadComponent: () => import('./features/status/status-page').then((m) => m.StatusPage),
      },
      {
        path: 'systems',
        title: 'Systems',
        loadComponent: () => import('./features/systems/system-list-page').then((m) => m.SystemListPage),
      },
      {
        // The page names the system in the tab once it has loaded.
        path: 'systems/:id',
        title: 'System',
        loadComponent: () => import('./features/systems/system-page').then((m) => m.SystemPage),
      },
      {
        path: 'alerts',
        title: 'Alerts',
        loadComponent: () => import('./features/alerts/alerts-page').then((m) => m.AlertsPage),
      },
      {
        // the target of the e-mail link {AUTH_URL}/alerts/<id>
        path: 'alerts/:id',
        title: 'Alert',
        loadComponent: () => import('./features/alerts/alert-page').then((m) => m.AlertPage),
      },
      {
        path: 'rules',
        title: 'Rules',
        loadComponent: () => import('./features/rules/rules-page').then((m) => m.RulesPage),
      },
      {
        path: 'maintenance',
        title: 'Maintenance',
        loadComponent: () => import('./features/maintenance/maintenance-page').then((m) => m.MaintenancePage),
      },
      {
        // the e-mailed monthly report links here with ?customer=&from=&to=
        path: 'reports/availability',
        title: 'Availability',
        loadComponent: () => import('./features/reports/availability-page').then((m) => m.AvailabilityPage),
      },
      {
        path: 'customers',
        title: 'Customers',
        loadComponent: () => import('./features/customers/customers-page').then((m) => m.CustomersPage),
      },
      {
        path: 'account',
        title: 'Account',
        loadComponent: () => import('./features/account/account-page').then((m) => m.AccountPage),
      },
      {
        // The OpenAPI document, rendered; every role may read it. Not /api: that prefix is the
        // server's (static.ts, the dev proxy), so a reload there would never reach the console.
        path: 'reference/api',
        title: 'API',
        loadComponent: () => import('./features/api/api-page').then((m) => m.ApiPage),
      },
      {
        path: 'users',
        title: 'Users',
        canActivate: [adminGuard],
        loadComponent: () => import('./features/users/users-page').then((m) => m.UsersPage),
      },
      { path: 'settings', pathMatch: 'full', redirectTo: 'settings/mail' },
      {
        path: 'settings/mail',
        title: 'Mail settings',
        canActivate: [adminGuard],
        loadComponent: () => import('./features/settings/smtp-page').then((m) => m.SmtpPage),
      },
      {
        path: 'settings/sso',
        title: 'Single sign-on',
        canActivate: [adminGuard],
        loadComponent: () => import('./features/settings/sso-page').then((m) => m.SsoPage),
      },
      {
        path: 'settings/agent-rollout',
        title: 'Agent updates',
        canActivate: [adminGuard],
        loadComponent: () => import('./features/settings/agent-rollout-page').then((m) => m.AgentRolloutPage),
      },
      {
        path: 'settings/alerts',
        title: 'Alert retention',
        canActivate: [adminGuard],
        loadComponent: () => import('./features/settings/alert-retention-page').then((m) => m.AlertRetentionPage),
      },
      {
        path: 'settings/forecasts',
        title: 'Forecasts',
        canActivate: [adminGuard],
        loadComponent: () => import('./features/settings/forecast-settings-page').then((m) => m.ForecastSettingsPage),
      },
      {
        path: 'settings/storage',
        title: 'Storage',
        canActivate: [adminGuard],
        loadComponent: () => import('./features/settings/storage-page').then((m) => m.StoragePage),
      },
      {
        path: 'settings/channels',
        title: 'Notification channels',
        canActivate: [writerGuard],
        loadComponent: () => import('./features/settings/channels-page').then((m) => m.ChannelsPage),
      },
      {
        path: 'settings/routing',
        title: 'Notification routing',
        canActivate: [writerGuard],
        loadComponent: () => import('./features/settings/routing-page').then((m) => m.RoutingPage),
      },
      {
        path: 'settings/audit-log',
        title: 'Audit log',
        canActivate: [writerGuard],
        loadComponent: () => import('./features/settings/audit-log-page').then((m) => m.AuditLogPage),
      },
      {
        // customers' public status pages; the pages themselves are the server's /status/<slug>
        path: 'settings/status-pages',
        title: 'Public status pages',
        canActivate: [writerGuard],
        loadComponent: () => import('./features/settings/status-pages-page').then((m) => m.StatusPagesPage),
      },
      {
        path: '**',
        title: 'Page not found',
        loadComponent: () => import('./features/not-found/not-found-page').then((m) => m.NotFoundPage),
      },
    ],
  },
];
