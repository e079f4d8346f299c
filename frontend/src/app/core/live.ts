import { DestroyRef, effect, inject, Injectable, signal } from '@angular/core';
import { Router } from '@angular/router';
import { defer, finalize, Observable, ReplaySubject, share, Subject } from 'rxjs';

import { AuthService } from './auth';
import {
  backoffMs,
  CLOSE_GOING_AWAY,
  CLOSE_SIGNED_OUT,
  LIVE_SOCKET,
  LiveSocket,
  liveUrl,
  SOCKET_OPEN,
} from './live-socket';
import { connectRefreshToLive, LiveChange } from './refresh';

/** Frames the server sends (docs/api.md "Live channel"). */
type ServerFrame =
  | { t: 'ready' }
  | { t: 'msg'; sid: string; id: string; data: unknown }
  | { t: 'snap'; sid: string; rev: number; data: unknown }
  | { t: 'error'; sid?: string; error: string };

interface TopicEntry {
  topic: string;
  sid: string;
  kind: 'snap' | 'msg';
  refs: number;
  subject: Subject<unknown>;
  /** Last message id seen (msg topics): the `after` of a resubscription. */
  lastId: string | null;
  /** Highest snapshot revision seen on this connection (snap topics). */
  lastRev: number;
}

/** A socket closes this long after its last subscriber left: page changes do not reconnect. */
const IDLE_CLOSE_MS = 5_000;

/**
 * The one WebSocket of the console (`/api/live`), as RxJS: `snapshot(topic)` and `messages(topic)` are
 * shared, typed observables; subscribing opens the socket (signed in only) and sends `sub`, the last
 * unsubscribe sends `unsub`. Lost connections come back with backoff and jitter and resubscribe with
 * `after` = the last id seen, so nothing is missed while the server keeps running. 4401 → sign-in;
 * 4000 (rights changed) and 1001 (restart) → reconnect.
 */
@Injectable({ providedIn: 'root' })
export class LiveService {
  private readonly auth = inject(AuthService);
  private readonly router = inject(Router);
  private readonly open = inject(LIVE_SOCKET);

  private readonly topics = new Map<string, TopicEntry>();
  private readonly observables = new Map<string, Observable<unknown>>();
  private socket: LiveSocket | null = null;
  private ready = false;
  private attempt = 0;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private idleTimer: ReturnType<typeof setTimeout> | null = null;
  private nextSid = 0;

  private readonly pausedState = signal(false);
  /** True while live updates are not arriving (connection lost, reconnecting). */
  readonly paused = this.pausedState.asReadonly();

  private readonly connected$ = new ReplaySubject<boolean>(1);

  constructor() {
    this.connected$.next(false);
    // what changed on the server (topic `changes`): each data service reloads on the topics it shows
    const unplug = connectRefreshToLive(this.messages<LiveChange>('changes'), this.connected$);
    inject(DestroyRef).onDestroy(() => {
      unplug();
      this.shutDown();
    });
    // signing in opens the socket for whoever is subscribed; signing out closes it
    effect(() => {
      if (this.auth.user()) this.ensureOpen();
      else this.shutDown();
    });
  }

  /** The snapshot of `topic` (`systems.list`, `alerts.counts`), again whenever it changes. */
  snapshot<T>(topic: string): Observable<T> {
    return this.observe<T>(topic, 'snap');
  }

  /** The messages of `topic` (`alert`, `system:<id>`) from now on (and those missed during a reconnect). */
  messages<T>(topic: string): Observable<T> {
    return this.observe<T>(topic, 'msg');
  }

  private observe<T>(topic: string, kind: 'snap' | 'msg'): Observable<T> {
    const key = `${kind}:${topic}`;
    let shared = this.observables.get(key);
    if (!shared) {
      shared = defer(() => {
        const entry = this.acquire(topic, kind);
        return entry.subject.pipe(finalize(() => this.release(entry)));
      }).pipe(
        // a late subscriber to a snapshot gets the current one at once; messages are only what comes next
        share({ connector: () => (kind === 'snap' ? new ReplaySubject(1) : new Subject()), resetOnRefCountZero: true }),
      );
      this.observables.set(key, shared);
    }
    return shared as Observable<T>;
  }

  private acquire(topic: string, kind: 'snap' | 'msg'): TopicEntry {
    let entry = this.topics.get(topic);
    if (!entry) {
      entry = {
        topic,
        sid: `s${++this.nextSid}`,
        kind,
        refs: 0,
        subject: kind === 'snap' ? new ReplaySubject<unknown>(1) : new Subject<unknown>(),
        lastId: null,
        lastRev: 0,
      };
      this.topics.set(topic, entry);
    }
    entry.refs += 1;
    if (entry.refs === 1) {
      if (this.ready) this.sendSub(entry);
      this.ensureOpen();
    }
    return entry;
  }

  private release(entry: TopicEntry): void {
    entry.refs -= 1;
    if (entry.refs > 0) return;
    this.topics.delete(entry.topic);
    if (this.ready) this.send({ t: 'unsub', sid: entry.sid });
    if (this.topics.size === 0 && !this.idleTimer) {
      this.idleTimer = setTimeout(() => {
        this.idleTimer = null;
        if (this.topics.size === 0) this.shutDown();
      }, IDLE_CLOSE_MS);
    }
  }

  private ensureOpen(): void {
    if (this.idleTimer) {
      clearTimeout(this.idleTimer);
      this.idleTimer = null;
    }
    if (this.socket || this.retryTimer || this.topics.size === 0 || !this.auth.user()) return;
    const socket = this.open(liveUrl());
    this.socket = socket;
    socket.onmessage = (event) => this.onFrame(event.data);
    socket.onclose = (event) => this.onClose(socket, event.code);
    socket.onerror = () => undefined; // onclose follows and decides
  }

  private shutDown(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const socket = this.socket;
    this.socket = null;
    this.ready = false;
    this.attempt = 0;
    this.pausedState.set(false);
    this.connected$.next(false);
    if (socket) {
      socket.onclose = null;
      socket.onmessage = null;
      socket.close(1000);
    }
  }

  private onFrame(raw: unknown): void {
    let frame: ServerFrame;
    try {
      frame = JSON.parse(String(raw)) as ServerFrame;
    } catch {
      return;
    }
    if (frame.t === 'ready') {
      this.ready = true;
      this.attempt = 0;
      this.pausedState.set(false);
      this.connected$.next(true);
      for (const entry of this.topics.values()) this.sendSub(entry);
      return;
    }
    if (frame.t === 'error') {
      console.warn('Live channel:', frame.error, frame.sid ?? '');
      return;
    }
    const entry = [...this.topics.values()].find((candidate) => candidate.sid === frame.sid);
    if (!entry) return;
    if (frame.t === 'msg') {
      entry.lastId = frame.id;
      entry.subject.next(frame.data);
    } else {
      if (frame.rev <= entry.lastRev) return;
      entry.lastRev = frame.rev;
      entry.subject.next(frame.data);
    }
  }

  private onClose(socket: LiveSocket, code: number): void {
    if (socket !== this.socket) return;
    this.socket = null;
    this.ready = false;
    this.connected$.next(false);
    for (const entry of this.topics.values()) entry.lastRev = 0; // revisions start over on a new connection
    if (code === CLOSE_SIGNED_OUT) {
      this.pausedState.set(false);
      this.auth.sessionEnded();
      const here = this.router.url;
      if (!here.startsWith('/login')) void this.router.navigate(['/login'], { queryParams: { returnUrl: here } });
      return;
    }
    if (this.topics.size === 0 || !this.auth.user()) return;
    this.pausedState.set(true);
    // a restart (1001) is worth an early try; anything else backs off
    const delay = code === CLOSE_GOING_AWAY && this.attempt === 0 ? backoffMs(-1) : backoffMs(this.attempt);
    this.attempt += 1;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.ensureOpen();
    }, delay);
  }

  private sendSub(entry: TopicEntry): void {
    this.send({ t: 'sub', sid: entry.sid, topic: entry.topic, after: entry.kind === 'msg' ? entry.lastId : null });
  }

  private send(frame: object): void {
    if (this.socket?.readyState === SOCKET_OPEN) this.socket.send(JSON.stringify(frame));
  }
}
