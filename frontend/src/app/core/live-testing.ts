import { TestBed } from '@angular/core/testing';
import { Routes } from '@angular/router';

import { provideForTests } from '@console/testing';
import { LIVE_SOCKET, LiveSocket, SOCKET_OPEN } from './live-socket';

/** A test double of the browser's WebSocket: records what the console sends, lets a spec play the server. */
export class FakeSocket implements LiveSocket {
  readyState = 0;
  onopen: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  readonly sent: Record<string, unknown>[] = [];
  closedWith: number | null = null;

  constructor(readonly url: string) {}

  send(data: string): void {
    this.sent.push(JSON.parse(data) as Record<string, unknown>);
  }

  close(code = 1000): void {
    this.closedWith = code;
    this.readyState = 3;
  }

  /** The server accepted the connection: open, then `ready`. */
  accept(): void {
    this.readyState = SOCKET_OPEN;
    this.onopen?.(new Event('open'));
    this.receive({ t: 'ready' });
  }

  receive(frame: unknown): void {
    this.onmessage?.(new MessageEvent('message', { data: JSON.stringify(frame) }));
  }

  /** The server (or the network) closed the connection with `code`. */
  drop(code: number): void {
    this.readyState = 3;
    this.onclose?.(new CloseEvent('close', { code }));
  }

  subs(): Record<string, unknown>[] {
    return this.sent.filter((frame) => frame['t'] === 'sub');
  }
}

/** The LIVE_SOCKET factory of specs, with every socket it opened. */
export function fakeSockets(): { sockets: FakeSocket[]; factory: (url: string) => LiveSocket } {
  const sockets: FakeSocket[] = [];
  return {
    sockets,
    factory: (url: string) => {
      const socket = new FakeSocket(url);
      sockets.push(socket);
      return socket;
    },
  };
}

/** Configures the app's test providers (with `routes`) over fake sockets; returns the sockets the console opens. */
export function configureLiveForTests(routes: Routes = []): FakeSocket[] {
  const fake = fakeSockets();
  TestBed.configureTestingModule({
    providers: [...provideForTests(routes), { provide: LIVE_SOCKET, useValue: fake.factory }],
  });
  return fake.sockets;
}
