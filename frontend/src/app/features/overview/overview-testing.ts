import { Overview } from './overview-api';

type ByStatus = Overview['totals']['byStatus'];

/** A count of systems by status for specs: `partial` where given, 0 elsewhere. */
export function statusCounts(partial: Partial<ByStatus> = {}): ByStatus {
  return { PENDING: 0, ONLINE: 0, WARNING: 0, CRITICAL: 0, OFFLINE: 0, STANDBY: 0, ...partial };
}
