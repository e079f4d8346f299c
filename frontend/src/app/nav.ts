import { IconName } from './ui/icon';

export interface NavEntry {
  label: string;
  icon: IconName;
  /** Absent while the area is not built yet: the entry shows as "coming soon" instead of a dead link. */
  path?: string;
  /** Shown to administrators only (the pages' guard enforces the same). */
  adminOnly?: boolean;
  /** Active also on sub-pages (/settings/mail for Settings). */
  prefix?: boolean;
}

export const NAV: readonly NavEntry[] = [
  { label: 'Systems', icon: 'systems', path: '/systems', prefix: true },
  { label: 'Status', icon: 'status', path: '/' },
  { label: 'Alerts', icon: 'alerts' },
  { label: 'Rules', icon: 'rules' },
  { label: 'Maintenance', icon: 'maintenance' },
  { label: 'Customers', icon: 'customers', path: '/customers' },
  { label: 'Users', icon: 'users', path: '/users', adminOnly: true },
  { label: 'Settings', icon: 'settings', path: '/settings/mail', adminOnly: true, prefix: true },
];
