import { User } from './auth';

/** Builds an account for specs; an administrator unless told otherwise. */
export function userBody(overrides: Partial<User> = {}): User {
  return {
    id: 1,
    email: 'ada@example.com',
    username: 'ada',
    name: 'Ada Lovelace',
    role: 'ADMIN',
    disabled: false,
    totpEnabled: false,
    source: 'local',
    notifyMinSeverity: 'WARNING',
    customerIds: [],
    createdAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}
