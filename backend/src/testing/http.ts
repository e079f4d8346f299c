/**
 * A tiny HTTP client for tests: a cookie jar (so it behaves like a browser),
 * JSON in and out, and the CSRF header once signed in. Real sockets, real server.
 */
import type { Knex } from 'knex';
import type { Role } from '../lib/access.js';
import { createAccount } from './accounts.js';

export interface Reply {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
  headers: Headers;
}

export class Client {
  private readonly cookies = new Map<string, string>();
  csrfToken: string | null = null;

  constructor(
    readonly baseUrl: string,
    private readonly defaults: Record<string, string> = {},
  ) {}

  /** The Cookie header this client sends (for requests made without it, e.g. raw bytes). */
  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }

  clearCookies(): void {
    this.cookies.clear();
  }

  async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
    const all: Record<string, string> = { origin: this.baseUrl, ...this.defaults, ...headers };
    if (this.cookies.size) all['cookie'] = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (this.csrfToken && method !== 'GET' && !('x-csrf-token' in all)) all['x-csrf-token'] = this.csrfToken;
    let payload: string | undefined;
    if (body !== undefined) {
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      all['content-type'] ??= 'application/json';
    }
    const response = await fetch(this.baseUrl + path, { method, headers: all, body: payload, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, ...rest] = (pair ?? '').split('=');
      if (!name) continue;
      const value = rest.join('=');
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name.trim());
      else this.cookies.set(name.trim(), value);
    }
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body: parsed, headers: response.headers };
  }

  get(path: string, headers?: Record<string, string>) {
    return this.request('GET', path, undefined, headers);
  }
  post(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request('POST', path, body ?? {}, headers);
  }
  patch(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request('PATCH', path, body ?? {}, headers);
  }
  put(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request('PUT', path, body ?? {}, headers);
  }
  delete(path: string, headers?: Record<string, string>) {
    return this.request('DELETE', path, undefined, headers);
  }

  /** Signs in and keeps the session cookie and CSRF token. */
  async signIn(identifier: string, password: string): Promise<Reply> {
    const reply = await this.post('/api/auth/login', { identifier, password });
    if (reply.status === 200 && reply.body?.csrfToken) this.csrfToken = reply.body.csrfToken;
    return reply;
  }
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** A browser-like client signed in as a new account of `role` (granted `customerIds`). */
export async function signedInAs(url: string, db: Knex, role: Role, customerIds: number[] = []): Promise<Client> {
  const account = await createAccount(db, { role, customerIds });
  const client = new Client(url);
  await client.signIn(account.email, account.password);
  return client;
}
