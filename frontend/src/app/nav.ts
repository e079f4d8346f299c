import { IconName } from './ui/icon';

export interface NavEntry {
  label: string;
  icon: IconName;
  /** Absent while the area is not built yet: the entry shows as "coming soon" instead of a dead link. */
  path?: string;
}

export const NAV: readonly NavEntry[] = [
  { label: 'Status', icon: 'status', path: '/' },
  { label: 'Systems', icon: 'systems' },
  { label: 'Alerts', icon: 'alerts' },
  { label: 'Rules', icon: 'rules' },
  { label: 'Maintenance', icon: 'maintenance' },
  { label: 'Customers', icon: 'customers' },
  { label: 'Users', icon: 'users' },
  { label: 'Settings', icon: 'settings' },
];
