/**
 * The one structured logger. It is configured at the lowest floor (db/logger.ts) so that migrations,
 * seeding and the server log alike; the backend takes it from here.
 */
export { createLogger, type Logger } from '../../../db/logger.js';
