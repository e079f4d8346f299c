/** Test factories for accounts and customers, written straight to the test database. */
import bcrypt from 'bcryptjs';
import type { Knex } from 'knex';
import type { Role } from '../lib/access.js';

export const PASSWORD = 'correct horse battery staple';
let counter = 0;

export interface AccountFactoryInput {
  role?: Role;
  email?: string;
  username?: string | null;
  password?: string;
  customerIds?: number[];
  disabled?: boolean;
}

export async function createAccount(db: Knex, input: AccountFactoryInput = {}) {
  counter += 1;
  const email = input.email ?? `user${counter}-${process.pid}@example.com`;
  const [row] = await db('users')
    .insert({
      email,
      username: input.username === undefined ? `user${counter}` : input.username,
      name: `User ${counter}`,
      role: input.role ?? 'OPERATOR',
      password_hash: bcrypt.hashSync(input.password ?? PASSWORD, 4),
      disabled: input.disabled ?? false,
    })
    .returning<{ id: number }[]>('id');
  const id = (row as { id: number }).id;
  for (const customerId of input.customerIds ?? []) {
    await db('user_customer_grants').insert({ user_id: id, customer_id: customerId });
  }
  return { id, email, password: input.password ?? PASSWORD };
}

export async function createCustomer(db: Knex, name = `Customer ${++counter}`): Promise<number> {
  const [row] = await db('customers').insert({ name }).returning<{ id: number }[]>('id');
  return (row as { id: number }).id;
}
