/**
 * A real `ws` client for the live channel tests: records every frame, waits
 * for the ones a test expects, and reports how the socket closed.
 */
import WebSocket from 'ws';

export type Frame = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON

export interface OpenOptions {
  headers?: Record<string, string>;
  origin?: string;
  /** false: never answer pings (a dead peer). */
  autoPong?: boolean;
}

export class LiveClient {
  readonly frames: Frame[] = [];
  readonly pings: number[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private waiters: (() => void)[] = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.frames.push(JSON.parse(data.toString()) as Frame);
      for (const wake of this.waiters.splice(0)) wake();
    });
    ws.on('ping', () => this.pings.push(Date.now()));
    this.closed = new Promise((resolve) =>
      ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
  }

  /** Opens `/api/live` and resolves after the server's `ready`. */
  static async open(baseUrl: string, options: OpenOptions = {}): Promise<LiveClient> {
    const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/api/live`, {
      headers: options.headers ?? {},
      ...(options.origin !== undefined ? { origin: options.origin } : {}),
      autoPong: options.autoPong ?? true,
    });
    const client = new LiveClient(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    ws.on('error', () => undefined);
    await client.next((f) => f['t'] === 'ready');
    return client;
  }

  /** The HTTP status an upgrade is refused with (throws if it was accepted). */
  static async refusal(baseUrl: string, options: OpenOptions = {}): Promise<number> {
    const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/api/live`, {
      headers: options.headers ?? {},
      ...(options.origin !== undefined ? { origin: options.origin } : {}),
    });
    return new Promise((resolve, reject) => {
      ws.once('unexpected-response', (_req, res) => {
        resolve(res.statusCode ?? 0);
        res.resume();
        ws.terminate();
      });
      ws.once('open', () => {
        ws.terminate();
        reject(new Error('the upgrade was accepted'));
      });
      ws.once('error', () => undefined);
    });
  }

  send(frame: unknown): void {
    this.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /** The first frame (from index `from`) that matches, waiting up to `timeoutMs`. */
  async next(match: (frame: Frame) => boolean, timeoutMs = 5_000, from = 0): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.frames.slice(from).find(match);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching frame within ${timeoutMs} ms; got ${JSON.stringify(this.frames)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Subscribes and waits for the first snap (snapshot topics) or nothing (message topics). */
  async subscribe(sid: string, topic: string, after: string | null = null): Promise<Frame | null> {
    const from = this.frames.length;
    this.send({ t: 'sub', sid, topic, after });
    if (topic === 'systems.list' || topic === 'alerts.counts' || topic === 'overview')
      return this.next((f) => f['t'] === 'snap' && f['sid'] === sid, 5_000, from);
    return null;
  }

  messages(sid: string): Frame[] {
    return this.frames.filter((f) => f['t'] === 'msg' && f['sid'] === sid);
  }

  close(): void {
    this.ws.close();
  }
}

/** Waits `ms` (to show that something does NOT arrive). */
export const quietFor = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
