// the badge moved to shared/systems (the overview shows it too); the systems pages import it from here
export { STATUS_LABELS, STATUSES, StatusBadge } from '@console/shared/systems/status-badge';
