import { IconName } from './ui/icon';

export interface NavEntry {
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

export const NAV: readonly NavEntry[] = [
  { label: 'Overview', icon: 'dashboard', path: '/' },
  { label: 'Systems', icon: 'systems', path: '/systems', prefix: true },
  { label: 'Alerts', icon: 'alerts', path: '/alerts', prefix: true },
  { label: 'Rules', icon: 'rules', path: '/rules', prefix: true },
  { label: 'Maintenance', icon: 'maintenance', path: '/maintenance', prefix: true },
  { label: 'Customers', icon: 'customers', path: '/customers' },
  { label: 'Availability', icon: 'report', path: '/reports/availability' },
  { label: 'Argus health', icon: 'status', path: '/status' },
  { label: 'API', icon: 'code', path: '/reference/api' },
  { label: 'Users', icon: 'users', path: '/users', adminOnly: true },
  { label: 'Settings', icon: 'settings', path: '/settings/mail', adminOnly: true, prefix: true },
  { label: 'Agent updates', icon: 'refresh', path: '/settings/agent-rollout', adminOnly: true },
  { label: 'Alert retention', icon: 'alerts', path: '/settings/alerts', adminOnly: true },
  { label: 'Storage', icon: 'database', path: '/settings/storage', adminOnly: true },
  { label: 'Notification channels', icon: 'send', path: '/settings/channels', writersOnly: true },
  { label: 'Notification routing', icon: 'routing', path: '/settings/routing', writersOnly: true },
  { label: 'Audit log', icon: 'history', path: '/settings/audit-log', writersOnly: true },
  { label: 'Status pages', icon: 'status', path: '/settings/status-pages', writersOnly: true },
];
