/**
 * Request bodies of the console API: JSON (≤ 256 kB) or a form (≤ 64 kB). (The agent webhook
 * parses its own gzip bodies of up to 4 MiB.)
 *
 * JSON is read here rather than by koa-body, so that no input reaches a route as something other
 * than what was sent: bytes that are not UTF-8 are refused instead of becoming
 * U+FFFD, and every string and key of the body and the query is checked for what PostgreSQL cannot
 * store (NUL) or is not Unicode text (a lone surrogate) and for keys that name JavaScript's object
 * machinery (`__proto__`, `constructor`, `prototype`), and a key given twice in one object
 * (duplicate-keys.ts). Each refusal is a 400 naming the field; a
 * body too large is a 413, a JSON body in an encoding we do not read a 415.
 */
import { koaBody } from 'koa-body';
import type { Context, Middleware, Next } from 'koa';
import { Invalid } from '../lib/errors.js';
import { duplicateKeyIn } from './duplicate-keys.js';
import { HttpError } from './errors.js';

const JSON_LIMIT = 256 * 1024;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
// a high surrogate not followed by a low one, or a low one not preceded by a high one
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const decoder = new TextDecoder('utf-8', { fatal: true });

class PayloadTooLarge extends HttpError {
  constructor() {
    super(413, `Request body too large (at most ${JSON_LIMIT / 1024} kB)`, 'payload_too_large');
  }
}

/** Deeper than any body of ours goes (a rule's scope is 2 levels): past it, a body is an attack on the walk. */
const MAX_DEPTH = 32;

/** The first problem of a parsed value, as "<path>: <what>", or null. */
export function hostileText(value: unknown, path: string, depth = 0): string | null {
  const at = (what: string) => `${path || 'body'}: ${what}`;
  if (depth > MAX_DEPTH) return at(`is nested too deeply (at most ${MAX_DEPTH} levels)`);
  if (typeof value === 'string') {
    if (value.includes('\u0000')) return at('must not contain a NUL character');
    if (LONE_SURROGATE.test(value)) return at('must be valid Unicode text (a lone surrogate)');
    return null;
  }
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const problem = hostileText(item, path ? `${path}.${index}` : String(index), depth + 1);
      if (problem) return problem;
    }
    return null;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const child = path ? `${path}.${key}` : key;
      if (FORBIDDEN_KEYS.has(key)) return `${child}: is not an allowed name`;
      const keyProblem = hostileText(key, child);
      if (keyProblem) return keyProblem;
      const problem = hostileText(item, child, depth + 1);
      if (problem) return problem;
    }
  }
  return null;
}

function refuseHostile(value: unknown, path = ''): void {
  const problem = hostileText(value, path);
  if (problem) throw new Invalid(problem, { field: problem.slice(0, problem.indexOf(':')) });
}

async function readJson(ctx: Context): Promise<unknown> {
  const encoding = (ctx.get('content-encoding') || 'identity').toLowerCase();
  if (encoding !== 'identity') throw new HttpError(415, `Content-Encoding ${encoding} is not accepted`, 'unsupported');
  const declared = ctx.request.length;
  if (declared !== undefined && declared > JSON_LIMIT) throw new PayloadTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > JSON_LIMIT) throw new PayloadTooLarge();
    chunks.push(chunk);
  }
  let text: string;
  try {
    text = decoder.decode(Buffer.concat(chunks));
  } catch {
    throw new Invalid('body: is not valid UTF-8', { field: 'body' });
  }
  if (!text.trim()) return {};
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch (error) {
    throw new Invalid(`body: is not valid JSON (${(error as Error).message})`, { field: 'body' });
  }
  const twice = duplicateKeyIn(text, body);
  if (twice) throw new Invalid(`${twice}: is given more than once`, { field: twice });
  return body;
}

export function parseBodies(): Middleware {
  // forms only: JSON is read below
  const forms = koaBody({
    json: false,
    urlencoded: true,
    text: false,
    multipart: false,
    formLimit: '64kb',
  }) as Middleware;
  return async (ctx: Context, next: Next) => {
    refuseHostile(ctx.query);
    if (['POST', 'PUT', 'PATCH', 'DELETE'].includes(ctx.method) && ctx.is('application/json', '+json')) {
      const body = await readJson(ctx);
      refuseHostile(body);
      ctx.request.body = body as typeof ctx.request.body;
      return next();
    }
    return forms(ctx, async () => {
      refuseHostile(ctx.request.body);
      await next();
    });
  };
}
