/**
 * Systems whose status or settings changed (not their last seen: the snapshots carry that), told to
 * the consoles on the `changes` topic. Events within 50 ms are announced together: a run that flips
 * a whole site costs one lookup of the systems' customers and one message per customer.
 */
import type { Logger } from '../lib/logger.js';

const BATCH_MS = 50;

export interface SystemChangesDeps {
  log: Logger;
  customersOfSystems(systemIds: readonly number[]): Promise<Map<number, number>>;
  /** Who may follow a system now (null: it is gone). */
  setOwner(systemId: number, customerId: number | null): void;
  announce(customerId: number, systemIds: number[]): void;
}

export function createSystemChanges({ log, customersOfSystems, setOwner, announce }: SystemChangesDeps) {
  const changed = new Set<number>();
  let timer: NodeJS.Timeout | null = null;

  async function flush() {
    timer = null;
    const ids = [...changed];
    changed.clear();
    let owners: Map<number, number>;
    try {
      owners = await customersOfSystems(ids);
    } catch (error) {
      log.warn(
        { err: { message: (error as Error).message }, systems: ids.length },
        'Could not read the customers of systems',
      );
      return;
    }
    const byCustomer = new Map<number, number[]>();
    for (const id of ids) {
      const customerId = owners.get(id) ?? null;
      setOwner(id, customerId);
      if (customerId === null) continue;
      const ofCustomer = byCustomer.get(customerId);
      if (ofCustomer) ofCustomer.push(id);
      else byCustomer.set(customerId, [id]);
    }
    for (const [customerId, systemIds] of byCustomer) announce(customerId, systemIds);
  }

  return {
    add(systemId: number): void {
      changed.add(systemId);
      timer ??= setTimeout(() => void flush(), BATCH_MS);
    },
    close(): void {
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
