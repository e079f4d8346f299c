import { InjectionToken } from '@angular/core';

/** The part of the browser's WebSocket the live channel uses (specs give a test double). */
export interface LiveSocket {
  readonly readyState: number;
  onopen: ((event: Event) => void) | null;
  onmessage: ((event: MessageEvent) => void) | null;
  onclose: ((event: CloseEvent) => void) | null;
  onerror: ((event: Event) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

export const SOCKET_OPEN = 1;

/** Opens the socket to `/api/live` on the host the console was loaded from (cookie and Origin come along). */
export const LIVE_SOCKET = new InjectionToken<(url: string) => LiveSocket>('live socket factory', {
  providedIn: 'root',
  factory: () => (url: string) => new WebSocket(url),
});

export function liveUrl(): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/live`;
}

/** Close codes of the live channel (docs/protocol.md "Live channel"): rights changed, token/session stopped working, server restart. */
export const CLOSE_RIGHTS_CHANGED = 4000;
export const CLOSE_SIGNED_OUT = 4401;
export const CLOSE_GOING_AWAY = 1001;

/** Reconnect delay: doubling from 1 s to 30 s, with jitter so a restarted server is not hit by every console at once. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(30_000, 1_000 * 2 ** Math.max(0, attempt));
  return Math.round(ceiling * (0.5 + random() * 0.5));
}
