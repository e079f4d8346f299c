/**
 * The agent's request body: JSON, optionally gzip-compressed, at most 4 MiB
 * after decompression (contracts.md). Decompressed bytes are counted as they
 * stream, so a gzip bomb costs at most the limit, never the whole expansion.
 * The app's own body parser must not run before this (it would read the stream
 * with its 256 KB limit): the ingest router is mounted in front of it.
 */
import type { IncomingMessage } from 'node:http';
import { createGunzip, type Gunzip } from 'node:zlib';
import { Invalid } from '../lib/errors.js';
import { PayloadTooLarge } from '../http/errors.js';

export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Reads the raw body, inflating gzip, refusing beyond `limit` bytes (413). */
export function readBody(req: IncomingMessage, gzip: boolean, limit = MAX_BODY_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (req.readableEnded || req.readableDidRead) {
      // another body parser got here first: fail loudly rather than wait forever for 'end'
      reject(new Error('The request body was already read: mount the ingest router before the body parser'));
      return;
    }
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      reject(new PayloadTooLarge(`Request body larger than ${limit} bytes`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let received = 0;
    let settled = false;
    const gunzip: Gunzip | null = gzip ? createGunzip() : null;
    const source = gunzip ?? req;

    const finish = (error: Error | null) => {
      if (settled) return;
      settled = true;
      source.removeListener('data', onData);
      if (gunzip) {
        req.unpipe(gunzip);
        gunzip.destroy();
      }
      req.removeListener('data', onRaw);
      // stop reading what is left; the response closes the connection
      if (error) req.pause();
      if (error) reject(error);
      else resolve(Buffer.concat(chunks, size));
    };
    const onRaw = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) finish(new PayloadTooLarge(`Request body larger than ${limit} bytes`));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) finish(new PayloadTooLarge(`Request body larger than ${limit} bytes after decompression`));
      else chunks.push(chunk);
    };

    req.on('data', onRaw);
    source.on('data', onData);
    source.once('end', () => finish(null));
    const aborted = () => finish(new Invalid('The request body was not received completely', { field: 'body' }));
    req.once('error', aborted);
    req.once('aborted', aborted);
    if (gunzip) {
      gunzip.once('error', () => finish(new Invalid('Body is not valid gzip', { field: 'body' })));
      req.pipe(gunzip);
    }
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Decodes UTF-8 and parses JSON; refuses invalid UTF-8, invalid JSON (NaN is not JSON) and duplicate keys. */
export function parseJsonBody(raw: Buffer): unknown {
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw new Invalid('Body is not valid UTF-8', { field: 'body' });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Invalid(`Body is not valid JSON: ${(error as Error).message}`, { field: 'body' });
  }
  // the exact scan only when the quick count leaves room for a duplicate (the usual body has none)
  const duplicate = keyTokensAtMost(text, countKeys(value)) ? null : findDuplicateKey(text);
  if (duplicate !== null) throw new Invalid(`${duplicate}: duplicate key`, { field: duplicate });
  return value;
}

/** Member names of every object in a parsed value (iterative: nesting depth costs no stack). */
function countKeys(value: unknown): number {
  let keys = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (item === null || typeof item !== 'object') continue;
    if (Array.isArray(item)) {
      for (const element of item) if (element !== null && typeof element === 'object') pending.push(element);
    } else {
      // own keys only: an inherited enumerable property must not raise the count
      for (const key of Object.keys(item)) {
        keys += 1;
        const member = (item as Record<string, unknown>)[key];
        if (member !== null && typeof member === 'object') pending.push(member);
      }
    }
  }
  return keys;
}

const KEY_TOKEN = /"[ \t\n\r]*:/g;

/**
 * Whether `text` (valid JSON) has at most `limit` places where a quote is followed
 * by a colon. Every member name in the text ends that way (a string inside a value
 * may too), so with at most as many as JSON.parse kept, no name occurred twice.
 */
function keyTokensAtMost(text: string, limit: number): boolean {
  KEY_TOKEN.lastIndex = 0;
  let tokens = 0;
  while (KEY_TOKEN.exec(text) !== null) if (++tokens > limit) return false;
  return true;
}

interface Frame {
  keys: Set<string> | null; // null: an array
  key: string;
  index: number;
}

/**
 * The path (`reports.0.metrics.1.value`) of the first key that appears twice in
 * one object, or null. JSON.parse silently keeps the last one, which would let
 * a body mean something other than what it says. `text` must be valid JSON.
 */
export function findDuplicateKey(text: string): string | null {
  const stack: Frame[] = [];
  let expectKey = false;
  // jump from one structural character to the next: numbers, literals and blanks are skipped natively
  const structural = /["{}[\],]/g;
  for (let match = structural.exec(text); match; match = structural.exec(text)) {
    const i = match.index;
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      let end = text.indexOf('"', i + 1);
      while (isEscaped(text, end)) end = text.indexOf('"', end + 1);
      const top = stack[stack.length - 1];
      if (expectKey && top?.keys) {
        const slice = text.slice(i + 1, end);
        const key = slice.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : slice;
        if (top.keys.has(key)) return [...stack.slice(0, -1).map((f) => (f.keys ? f.key : f.index)), key].join('.');
        top.keys.add(key);
        top.key = key;
        expectKey = false;
      }
      structural.lastIndex = end + 1;
    } else if (c === 0x7b) {
      stack.push({ keys: new Set(), key: '', index: 0 });
      expectKey = true;
    } else if (c === 0x5b) {
      stack.push({ keys: null, key: '', index: 0 });
    } else if (c === 0x7d || c === 0x5d) {
      stack.pop();
    } else {
      const top = stack[stack.length - 1];
      if (top?.keys) expectKey = true;
      else if (top) top.index += 1;
    }
  }
  return null;
}

/** Whether the quote at `at` is preceded by an odd number of backslashes. */
function isEscaped(text: string, at: number): boolean {
  let backslashes = 0;
  for (let j = at - 1; text.charCodeAt(j) === 0x5c; j--) backslashes += 1;
  return backslashes % 2 === 1;
}
