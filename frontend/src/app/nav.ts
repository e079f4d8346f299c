import { IconName } from './ui/icon';

export interface NavEntry {
  group: NavGroup;
  label: string;
  icon: IconName;
  /** Absent while the area is not built yet: the entry shows as "coming soon" instead of a dead link. */
  path?: string;
  /** Shown to administrators only (the pages' guard enforces the same). */
  adminOnly?: boolean;
  /** Shown to administrators and operators (the pages' guard enforces the same). */
  writersOnly?: boolean;
  /** Active also on sub-pages (/settings/mail for Settings). */
  prefix?: boolean;
}

/** The sidebar's groups, in order: watching the fleet, setting up what Argus does, running Argus. */
export const NAV_GROUPS = ['Monitor', 'Configure', 'Administer'] as const;
export type NavGroup = (typeof NAV_GROUPS)[number];

export const NAV: readonly NavEntry[] = [
  { group: 'Monitor', label: 'Overview', icon: 'dashboard', path: '/' },
  { group: 'Monitor', label: 'Systems', icon: 'systems', path: '/systems', prefix: true },
  { group: 'Monitor', label: 'Alerts', icon: 'alerts', path: '/alerts', prefix: true },
  { group: 'Monitor', label: 'Availability', icon: 'report', path: '/reports/availability' },
  { group: 'Configure', label: 'Rules', icon: 'rules', path: '/rules', prefix: true },
  { group: 'Configure', label: 'Maintenance', icon: 'maintenance', path: '/maintenance', prefix: true },
  { group: 'Configure', label: 'Customers', icon: 'customers', path: '/customers' },
  { group: 'Configure', label: 'Notification channels', icon: 'send', path: '/settings/channels', writersOnly: true },
  { group: 'Configure', label: 'Notification routing', icon: 'routing', path: '/settings/routing', writersOnly: true },
  {
    group: 'Configure',
    label: 'Public status pages',
    icon: 'status',
    path: '/settings/status-pages',
    writersOnly: true,
  },
  { group: 'Administer', label: 'Users', icon: 'users', path: '/users', adminOnly: true },
  { group: 'Administer', label: 'Mail settings', icon: 'settings', path: '/settings/mail', adminOnly: true },
  { group: 'Administer', label: 'Single sign-on', icon: 'users', path: '/settings/sso', adminOnly: true },
  { group: 'Administer', label: 'Agent updates', icon: 'refresh', path: '/settings/agent-rollout', adminOnly: true },
  { group: 'Administer', label: 'Alert retention', icon: 'alerts', path: '/settings/alerts', adminOnly: true },
  { group: 'Administer', label: 'Forecasts', icon: 'report', path: '/settings/forecasts', adminOnly: true },
  { group: 'Administer', label: 'Storage', icon: 'database', path: '/settings/storage', adminOnly: true },
  { group: 'Administer', label: 'Audit log', icon: 'history', path: '/settings/audit-log', writersOnly: true },
  { group: 'Administer', label: 'Argus health', icon: 'status', path: '/status' },
  { group: 'Administer', label: 'API', icon: 'code', path: '/reference/api' },
];
