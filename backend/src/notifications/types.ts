/** Shapes the notification senders share. */

/** What suppression needs to know of a system. */
export interface SystemRef {
  id: number;
  customerId: number;
  clusterId: number | null;
}

export interface DeliveryResult {
  sent: number;
  failed: number;
  dropped: number;
}
