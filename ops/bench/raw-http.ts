/**
 * The benchmarks' HTTP client for requests written ahead: one keep-alive connection per sender, a
 * request written as one buffer (its head and body made before the timed phase), the answer read by
 * its Content-Length (or chunks). The server receives an ordinary HTTP/1.1 request with the headers
 * node:http writes (Host, Connection: keep-alive, Content-Length and the caller's), one write each;
 * what the client no longer does is node:http's per-request work (its request and response objects,
 * header validation, streams), which costs a 2-core machine ~50 µs a request beside the server it
 * measures (~13 µs this way).
 */
import net from 'node:net';

export interface RawAnswer {
  status: number;
  retryAfter: string | null;
  body: Buffer;
}

/** A POST's bytes as node:http writes them for `url` (http only), `headers` and `body`. */
export function postBytes(url: string, headers: Record<string, string>, body: Buffer): Buffer {
  const target = new URL(url);
  let head = `POST ${target.pathname}${target.search} HTTP/1.1\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  head += `content-length: ${body.length}\r\nHost: ${target.host}\r\nConnection: keep-alive\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

const HEAD_END = Buffer.from('\r\n\r\n');

/** The answer's head fields the client needs. */
function parseHead(head: string): {
  status: number;
  length: number | null;
  chunked: boolean;
  close: boolean;
  retryAfter: string | null;
} {
  const status = Number(head.slice(9, 12));
  let length: number | null = null;
  let chunked = false;
  let close = false;
  let retryAfter: string | null = null;
  for (const line of head.split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'content-length') length = Number(value);
    else if (name === 'transfer-encoding') chunked = value.toLowerCase().includes('chunked');
    else if (name === 'connection') close = value.toLowerCase() === 'close';
    else if (name === 'retry-after') retryAfter = value;
  }
  // no body: 1xx, 204 and 304 (a HEAD is never sent here)
  if (status === 204 || status === 304 || (status >= 100 && status < 200)) length = 0;
  return { status, length, chunked, close, retryAfter };
}

/** A chunked body's end (the index after its last chunk and trailers) and bytes, or null while incomplete. */
function dechunk(buffer: Buffer, from: number): { end: number; body: Buffer } | null {
  const parts: Buffer[] = [];
  let at = from;
  for (;;) {
    const lineEnd = buffer.indexOf('\r\n', at);
    if (lineEnd < 0) return null;
    const size = Number.parseInt(buffer.toString('latin1', at, lineEnd), 16);
    if (!Number.isFinite(size)) throw new Error('bad chunk size');
    if (size === 0) {
      const end = buffer.indexOf(HEAD_END, lineEnd);
      if (end >= 0 && end === lineEnd) return { end: end + 4, body: Buffer.concat(parts) };
      const trailersEnd = buffer.indexOf(HEAD_END, lineEnd + 2);
      return trailersEnd < 0 ? null : { end: trailersEnd + 4, body: Buffer.concat(parts) };
    }
    if (buffer.length < lineEnd + 2 + size + 2) return null;
    parts.push(buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

/**
 * One sender's keep-alive connection, one request at a time (as an agent holds one). A connection
 * the server closed while idle (its keep-alive timeout between phases) is dialled anew, and a request
 * that found it closed before any answer came is written again once on the new one.
 */
export class RawConnection {
  private socket: net.Socket | null = null;
  private received: Buffer = Buffer.alloc(0);
  private pending: {
    bytes: Buffer;
    resolve: (answer: RawAnswer) => void;
    reject: (error: Error) => void;
    reused: boolean;
    retried: boolean;
  } | null = null;
  private readonly port: number;
  private readonly host: string;

  constructor(url: string) {
    const target = new URL(url);
    if (target.protocol !== 'http:') throw new Error('RawConnection speaks plain http only');
    this.host = target.hostname;
    this.port = Number(target.port || 80);
  }

  /** Writes `bytes` (one whole request) and resolves with its answer. */
  send(bytes: Buffer): Promise<RawAnswer> {
    if (this.pending) return Promise.reject(new Error('one request at a time'));
    return new Promise((resolve, reject) => {
      this.pending = { bytes, resolve, reject, reused: this.socket !== null, retried: false };
      this.write();
    });
  }

  /**
   * Dials now and resolves once connected (or with the error), so the first request's time holds no
   * connection set-up: a bench opens its kept-alive connections before its clock starts.
   */
  open(): Promise<void> {
    if (this.socket) return Promise.resolve();
    const socket = this.dial();
    this.socket = socket;
    return new Promise((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('error', reject);
    });
  }

  close(): void {
    this.socket?.destroy();
    this.socket = null;
  }

  private write(): void {
    if (!this.socket) this.socket = this.dial();
    this.socket.write(this.pending?.bytes ?? Buffer.alloc(0));
  }

  private dial(): net.Socket {
    const socket = net.connect(this.port, this.host);
    socket.setNoDelay(true);
    this.received = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => this.data(socket, chunk));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.closed(socket));
    return socket;
  }

  private closed(socket: net.Socket): void {
    if (this.socket !== socket) return;
    this.socket = null;
    const pending = this.pending;
    if (!pending) return;
    if (pending.reused && !pending.retried && this.received.length === 0) {
      // the server closed the idle connection as the request went out: once more on a new one
      pending.retried = true;
      pending.reused = false;
      this.write();
      return;
    }
    this.pending = null;
    pending.reject(new Error('connection closed before the answer'));
  }

  private data(socket: net.Socket, chunk: Buffer): void {
    this.received = this.received.length ? Buffer.concat([this.received, chunk]) : chunk;
    const headEnd = this.received.indexOf(HEAD_END);
    if (headEnd < 0) return;
    const head = parseHead(this.received.toString('latin1', 0, headEnd));
    let body: Buffer;
    let end: number;
    if (head.chunked) {
      let done: ReturnType<typeof dechunk>;
      try {
        done = dechunk(this.received, headEnd + 4);
      } catch {
        socket.destroy();
        return;
      }
      if (!done) return;
      ({ body, end } = done);
    } else if (head.length !== null) {
      end = headEnd + 4 + head.length;
      if (this.received.length < end) return;
      body = this.received.subarray(headEnd + 4, end);
    } else {
      return; // read until close: not spoken by the servers measured here
    }
    this.received = this.received.subarray(end);
    const pending = this.pending;
    this.pending = null;
    if (head.close) {
      this.socket = null;
      socket.destroy();
    }
    pending?.resolve({ status: head.status, retryAfter: head.retryAfter, body });
  }
}
