/**
 * Who may call a route: every kind of access the API knows, in one table. A route declares its kind
 * once (http/route.ts); the guard mounted in front of it and the access its OpenAPI operation
 * documents (http/openapi.ts) are both read from here, so they cannot disagree.
 */
import type { Middleware } from 'koa';
import { requireCookieSession, requireRole, requireSignedIn } from './route-guards.js';

export type Access =
  | 'public'
  | 'signed-in'
  | 'admin'
  | 'admin-or-operator'
  | 'customer-writer'
  | 'browser-session'
  | 'agent'
  | 'enrollment'
  | 'cron'
  | 'metrics';

export interface AccessKind {
  /** The line of the operation's description that says who may call it. */
  text: string;
  /**
   * What runs before the route's input is read: 401 without a principal, 403 for a refused write
   * (CSRF, Origin, a viewer's token) or role. Empty where the route checks a credential of its own
   * (agents, the scheduler, a scraper) or needs none.
   */
  guard: Middleware[];
}

const STAFF_TEXT = 'ADMIN, or an OPERATOR for the customers granted to them.';

export const ACCESS_KINDS: Record<Access, AccessKind> = {
  public: { text: 'No sign-in.', guard: [] },
  'signed-in': {
    text: 'Any signed-in account or API token (VIEWER and up); answers are limited to what the account may see.',
    guard: [requireSignedIn()],
  },
  admin: { text: 'ADMIN only.', guard: [requireRole('ADMIN')] },
  // a VIEWER is refused at the edge (403), before anything is read
  'admin-or-operator': { text: STAFF_TEXT, guard: [requireRole('ADMIN', 'OPERATOR')] },
  // signed in at the edge; the service checks the grant on the thing's own customer, so a VIEWER
  // meets 404 for what it may not see and 403 for what it may only read
  'customer-writer': { text: STAFF_TEXT, guard: [requireSignedIn()] },
  'browser-session': {
    text: 'A signed-in browser session only (an API token is refused).',
    guard: [requireCookieSession()],
  },
  agent: { text: 'An agent: a JWT signed with the enrolment key or the agent key.', guard: [] },
  enrollment: { text: 'A cluster enrolment key (the installer).', guard: [] },
  cron: { text: 'The scheduler: `Authorization: Bearer <CRON_SECRET>`.', guard: [] },
  metrics: { text: 'An ADMIN API token, or `Authorization: Bearer <METRICS_TOKEN>`.', guard: [] },
};
