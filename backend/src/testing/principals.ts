/** Who calls a service in tests that call it directly, not through the routes. */
import type { Principal } from '../lib/access.js';

/** An administrator signed in to the console: sees and may change every customer. */
export const ADMIN: Principal = {
  userId: 1,
  role: 'ADMIN',
  email: 'admin@example.com',
  via: 'session',
  sessionId: null,
  tokenId: null,
  customerIds: new Set(),
};
