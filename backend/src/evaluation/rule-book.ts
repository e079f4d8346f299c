/**
 * Which rules apply to a system: a rule scoped to the system's customer, cluster
 * or the system itself overrides the global rule with the same key there, the
 * most specific scope winning (system > cluster > customer > global). A disabled
 * winner switches that key off for the system. Most systems have no override, so
 * they share one cached answer: 10,000 systems cost a few map lookups each.
 */
import type { ScopedRule, SystemInfo } from './types.js';

const scopeKey = (type: string, id: number) => `${type}:${id}`;

export class RuleBook<R extends ScopedRule> {
  private readonly global = new Map<string, R>();
  private readonly scoped = new Map<string, R[]>();
  private readonly cache = new Map<string, R[]>();
  private readonly globalEnabled: R[];

  constructor(rules: readonly R[]) {
    for (const rule of rules) {
      if (!rule.scope) this.global.set(rule.key, rule);
      else {
        const key = scopeKey(rule.scope.type, rule.scope.id);
        const list = this.scoped.get(key) ?? [];
        list.push(rule);
        this.scoped.set(key, list);
      }
    }
    this.globalEnabled = [...this.global.values()].filter((rule) => rule.enabled);
  }

  /** The enabled rules that govern `system`, one per key. */
  effectiveFor(system: Pick<SystemInfo, 'id' | 'customerId' | 'clusterId'>): R[] {
    const layers = [
      this.scoped.get(scopeKey('customer', system.customerId)),
      system.clusterId === null ? undefined : this.scoped.get(scopeKey('cluster', system.clusterId)),
      this.scoped.get(scopeKey('system', system.id)),
    ];
    if (!layers.some(Boolean)) return this.globalEnabled;
    // systems of one customer and cluster share an answer unless they have their own override
    const cacheKey = layers[2] ? null : `${system.customerId}/${system.clusterId ?? ''}`;
    const cached = cacheKey ? this.cache.get(cacheKey) : undefined;
    if (cached) return cached;
    const byKey = new Map(this.global);
    for (const layer of layers) for (const rule of layer ?? []) byKey.set(rule.key, rule);
    const effective = [...byKey.values()].filter((rule) => rule.enabled);
    if (cacheKey) this.cache.set(cacheKey, effective);
    return effective;
  }

  /** The rule with `key` that governs `system`, or null when none does (or it is disabled there). */
  ruleFor(system: Pick<SystemInfo, 'id' | 'customerId' | 'clusterId'>, key: string): R | null {
    return this.effectiveFor(system).find((rule) => rule.key === key) ?? null;
  }

  /** Every enabled rule of any scope (the SQL pre-filter reads these). */
  allEnabled(): R[] {
    return [...this.globalEnabled, ...[...this.scoped.values()].flat().filter((rule) => rule.enabled)];
  }
}
