/**
 * The agent's request body: JSON, optionally gzip-compressed, at most 4 MiB
 * after decompression (docs/limits.md "Request sizes"). The compressed bytes are
 * counted as they arrive (at most the limit is read), then inflated in one call
 * that stops at the limit, so a gzip bomb costs at most the limit, never the whole
 * expansion. One call, not a gunzip stream per request (its zlib state, its chunks
 * through the thread pool: ~80 µs of CPU for an agent's ~1 KB report, against ~9 µs
 * for the call). A small body is inflated at once on the event loop; a large one
 * (a backlog of up to 500 reports) in the thread pool, where its ~10–30 ms of
 * inflating run beside the event loop instead of stopping it.
 * The app's own body parser must not run before this (it would read the stream
 * with its 256 KB limit): the ingest router is mounted in front of it.
 */
import type { IncomingMessage } from 'node:http';
import { promisify } from 'node:util';
import { gunzip, gunzipSync } from 'node:zlib';
import { Invalid } from '../lib/errors.js';
import { duplicateKeyIn } from '../http/duplicate-keys.js';
import { PayloadTooLarge } from '../http/errors.js';

export const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Compressed bodies up to this are inflated on the event loop (a live report is ~1 KB; this inflates in < 1 ms). */
export const INFLATE_AT_ONCE_BYTES = 16 * 1024;

const gunzipInPool = promisify(gunzip);

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
    let received = 0;
    let settled = false;

    const finish = (error: Error | null) => {
      if (settled) return;
      settled = true;
      req.removeListener('data', onData);
      if (error) {
        // stop reading what is left; the response closes the connection
        req.pause();
        reject(error);
        return;
      }
      const raw = Buffer.concat(chunks, received);
      resolve(gzip ? gunzipWithin(raw, limit) : raw);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) finish(new PayloadTooLarge(`Request body larger than ${limit} bytes`));
      else chunks.push(chunk);
    };

    req.on('data', onData);
    req.once('end', () => finish(null));
    const aborted = () => finish(new Invalid('The request body was not received completely', { field: 'body' }));
    req.once('error', aborted);
    req.once('aborted', aborted);
  });
}

/** Inflates a whole gzip body (several members read as one), stopping at `limit` bytes (413). */
async function gunzipWithin(raw: Buffer, limit: number): Promise<Buffer> {
  try {
    if (raw.length <= INFLATE_AT_ONCE_BYTES) return gunzipSync(raw, { maxOutputLength: limit });
    return await gunzipInPool(raw, { maxOutputLength: limit });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE')
      throw new PayloadTooLarge(`Request body larger than ${limit} bytes after decompression`);
    throw new Invalid('Body is not valid gzip', { field: 'body' });
  }
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
  const duplicate = duplicateKeyIn(text, value);
  if (duplicate !== null) throw new Invalid(`${duplicate}: duplicate key`, { field: duplicate });
  return value;
}
