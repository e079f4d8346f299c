/**
 * One open socket of the hub and its subscriptions, and the few things done
 * to a socket: send (dropping a peer that stopped reading), close once, count
 * frames against floods, refuse an upgrade before it happens.
 */
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { Principal } from '../lib/access.js';
import type { Topic } from './protocol.js';
import type { Audience, SnapshotSubscriber } from './snapshots.js';

/** A client that lets this much pile up is not reading: drop it, it resumes with `after`. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
const FLOOD_FRAMES = 60; // per FLOOD_WINDOW_MS: far above what a console sends
const FLOOD_WINDOW_MS = 1_000;
export const CLOSE_POLICY = 1008;

export interface Subscription extends SnapshotSubscriber {
  conn: Connection;
  sid: string;
  topic: Topic;
}

export interface Connection {
  ws: WebSocket;
  principal: Principal;
  audience: Audience;
  subs: Map<string, Subscription>;
  missedPongs: number;
  windowStart: number;
  framesInWindow: number;
  closing: boolean;
}

export function closeWith(conn: Connection, code: number, reason: string) {
  if (conn.closing) return;
  conn.closing = true;
  conn.ws.close(code, reason);
}

/** Whether the frame was handed to the socket (not to a closing one or a peer that stopped reading). */
export function send(conn: Connection, frame: string | Buffer): boolean {
  if (conn.closing) return false;
  if (conn.ws.bufferedAmount > MAX_BUFFERED_BYTES) {
    conn.closing = true;
    conn.ws.terminate();
    return false;
  }
  conn.ws.send(frame, { binary: false });
  return true;
}

export function rejectUpgrade(socket: Duplex, status: number, text: string) {
  const body = JSON.stringify({ error: text });
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  socket.destroy();
}

/** Counts a client frame; true when the connection sent more than it may in the current second. */
export function floods(conn: Connection, now: number): boolean {
  if (now - conn.windowStart > FLOOD_WINDOW_MS) {
    conn.windowStart = now;
    conn.framesInWindow = 0;
  }
  conn.framesInWindow += 1;
  return conn.framesInWindow > FLOOD_FRAMES;
}
