import { Health } from './health';

/** Builds a GET /api/health body for specs; healthy unless told otherwise. */
export function healthBody(overrides: Partial<Health> = {}): Health {
  return {
    status: 'ok',
    timestamp: '2026-11-21T10:00:00.000Z',
    services: { database: 'ok', redis: 'ok' },
    ...overrides,
  };
}
