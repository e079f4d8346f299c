/**
 * Whether an error means "the database cannot be reached right now" (stopped, restarting, failing
 * over, its name not resolving while its container is down) rather than a fault of the request or of
 * our code. Such a request is worth retrying shortly, so the HTTP layer answers 503 with Retry-After
 * instead of 500; pg's pool and Knex reconnect by themselves once the database is back.
 */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);
// SQLSTATE class 08 (connection exception) and the shutdown/starting-up codes of class 57
const SQLSTATES = new Set(['57P01', '57P02', '57P03']);
const MESSAGES = [
  /^Connection terminated/,
  /Client has encountered a connection error and is not queryable/,
  /^Knex: Timeout acquiring a connection/,
  /the database system is (starting up|shutting down|in recovery mode)/,
];

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 3) return false;
  const { code, message, name, cause } = error as {
    code?: unknown;
    message?: unknown;
    name?: unknown;
    cause?: unknown;
  };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || SQLSTATES.has(code) || code.startsWith('08')))
    return true;
  if (name === 'KnexTimeoutError') return true;
  if (typeof message === 'string' && MESSAGES.some((pattern) => pattern.test(message))) return true;
  return isDatabaseUnavailable(cause, depth + 1);
}
