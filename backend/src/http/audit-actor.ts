/** The audit actor of a request: its principal (rights already checked) and its client address. */
import type { Context } from 'koa';
import { actorOf, type AuditActor } from '../lib/audit-trail.js';
import { currentPrincipal } from './route-guards.js';

export function auditActor(ctx: Pick<Context, 'state'>): AuditActor {
  return actorOf(currentPrincipal(ctx.state), ctx.state.clientIp ?? null);
}

/** Before sign-in (no principal yet): the identifier as typed, no id. */
export function anonymousActor(ctx: Pick<Context, 'state'>, name: string | null): AuditActor {
  return { type: 'user', id: null, name, address: ctx.state.clientIp ?? null };
}
