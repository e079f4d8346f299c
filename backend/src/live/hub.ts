/**
 * The live hub (architecture.md "Live path"): one per app. It owns the
 * WebSocket server on the app's own HTTP server, receives events from the bus
 * and decides per connection what that account may see.
 *
 * - `alert`, `changes` and `system:<id>` are message topics: every event gets an
 *   id `<runId>-<seq>`, goes into the replay buffer and out to subscribers that
 *   may see it; its data is serialised once and each frame built once per `sid`.
 * - `changes` says what changed (`{topic, ids}`: rules, maintenance, customers,
 *   users, agent settings from the bus; alerts and systems from their events),
 *   so a console reloads only what it shows (bus/changes.ts).
 * - `systems.list`, `alerts.counts` and `overview` are snapshot topics (see snapshots.ts).
 * - Every 25 s: ping (two unanswered pings drop the peer), re-read the rights of
 *   all connections in one query, and recompute the snapshots whose content may
 *   have changed (last seen moves without a status change; an event lost during a
 *   Redis outage is caught up): one fingerprint query tells (snapshot-refresh.ts).
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { ALERT_TOPIC, type AlertEvent } from '../alerts/alert-json.js';
import { visibleTo, type Principal } from '../lib/access.js';
import type { Bus } from '../bus/bus.js';
import { CHANGES_TOPIC, parseChangeEvent, reaches, type Reach } from '../bus/changes.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { NO_LIVE_METRICS, type LiveMetrics } from '../lib/self-metrics.js';
import { frames, isSnapshotTopic, LIVE_PATH, parseClientFrame, parseMessageId, type Topic } from './protocol.js';
import { createReplayBuffer, DEFAULT_REPLAY_LIMITS, type ReplayLimits } from './replay.js';
import { CLOSE_GOING_AWAY, recheckConnections, type CredentialChecks } from './rights-check.js';
import type { FleetFingerprint } from './repo.js';
import { createSnapshotRefresh } from './snapshot-refresh.js';
import { createSnapshots, OVERVIEW_CHANGES, type ComputeSnapshot, type SnapshotsDeps } from './snapshots.js';
import { createSystemChanges } from './system-changes.js';
import { createSystemTopics } from './system-topics.js';
import { realTicker, type Ticker } from './ticker.js';
import {
  CLOSE_POLICY,
  closeWith,
  floods,
  rejectUpgrade,
  send as sendToSocket,
  type Connection,
  type Subscription,
} from './connection.js';
import type { LiveChange } from '../../../contracts/live.js';

export const PING_INTERVAL_MS = 25_000;
/** docs/limits.md "Request sizes": client frames are small. */
export const MAX_PAYLOAD = 64 * 1024;
const MAX_SUBSCRIPTIONS = 100;
const CHANGES = 'changes';

export interface LiveHubDeps {
  bus: Bus;
  clock: Clock;
  log: Logger;
  authenticate(req: IncomingMessage): Promise<Principal | null>;
  credentials: CredentialChecks;
  computeSnapshot: ComputeSnapshot;
  /** The customer a system belongs to now, or null when it does not exist. */
  customerOfSystem(systemId: number): Promise<number | null>;
  /** The same for many systems in one query (a missing one is left out). */
  customersOfSystems(systemIds: readonly number[]): Promise<Map<number, number>>;
  /** What the snapshots show, folded into one value: the ping recomputes only what changed. */
  fleetFingerprint?: () => Promise<FleetFingerprint>;
  ticker?: Ticker;
  replayLimits?: ReplayLimits;
  snapshotIntervalMs?: number;
  /** Told of every snapshot invalidation (the overview's shared computation is then forgotten). */
  onSnapshotInvalidate?: SnapshotsDeps['onInvalidate'];
  /** Argus's own metrics: open sockets, frames sent. */
  metrics?: LiveMetrics;
}

export function createLiveHub(deps: LiveHubDeps) {
  const { bus, clock, log } = deps;
  const metrics = deps.metrics ?? NO_LIVE_METRICS;
  const send = (conn: Connection, frame: string | Buffer) => {
    if (sendToSocket(conn, frame)) metrics.messageSent();
  };
  const runId = randomBytes(6).toString('base64url').replace(/[-_]/g, 'x');
  let seq = 0;
  const replay = createReplayBuffer(clock, deps.replayLimits ?? DEFAULT_REPLAY_LIMITS);
  const snapshots = createSnapshots({
    compute: deps.computeSnapshot,
    onInvalidate: deps.onSnapshotInvalidate,
    log,
    ...(deps.snapshotIntervalMs !== undefined ? { minIntervalMs: deps.snapshotIntervalMs } : {}),
  });
  const refreshChangedSnapshots = createSnapshotRefresh({ snapshots, log, fingerprint: deps.fleetFingerprint });
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_PAYLOAD,
    perMessageDeflate: false,
    clientTracking: false,
  });
  const connections = new Set<Connection>();
  const byUser = new Map<number, Set<Connection>>();
  /** Message-topic subscriptions: `alert`, `changes` and `system:<id>`. */
  const topicSubs = new Map<string, Set<Subscription>>();
  const systemTopics = createSystemTopics({
    bus,
    log,
    customerOfSystem: deps.customerOfSystem,
    deliver: (topic, event) => deliver(topic, event, null),
    hasSubscribers: (topic) => (topicSubs.get(topic)?.size ?? 0) > 0,
  });
  const busOffs: Promise<() => Promise<void>>[] = [];
  let stopTicker: (() => void) | null = null;
  let closing = false;

  function mayReceive(conn: Connection, topic: Topic, reach: Reach | null): boolean {
    if (topic.kind === 'system') {
      const owner = systemTopics.ownerOf(topic.systemId);
      return owner !== null && reaches(conn.principal, { customerId: owner });
    }
    return reach !== null && reaches(conn.principal, reach);
  }

  /** One event of a message topic: buffered for replay, then sent to who may see it. */
  function deliver(topic: string, data: unknown, reach: Reach | null) {
    seq += 1;
    const id = `${runId}-${seq}`;
    const dataJson = JSON.stringify(data);
    replay.add({ seq, topic, reach, dataJson });
    const subs = topicSubs.get(topic);
    if (!subs) return;
    const built = new Map<string, Buffer>(); // sids repeat across sockets: build each frame once
    for (const sub of subs) {
      if (!mayReceive(sub.conn, sub.topic, reach)) continue;
      let frame = built.get(sub.sidJson);
      if (!frame) {
        frame = Buffer.from(frames.msg(sub.sidJson, id, dataJson));
        built.set(sub.sidJson, frame);
      }
      send(sub.conn, frame);
    }
  }

  function onAlert(event: unknown) {
    const alert = (event as Partial<AlertEvent> | null)?.alert;
    if (!alert || typeof alert.customerId !== 'number') {
      log.warn('Ignored an alert bus event without an alert');
      return;
    }
    const customerId = alert.customerId;
    deliver(ALERT_TOPIC, event, { customerId });
    if (typeof alert.id === 'number')
      deliver(CHANGES, { topic: 'alerts', ids: [alert.id] } satisfies LiveChange, { customerId });
    snapshots.invalidate(undefined, (audience) => audience.visible === null || audience.visible.has(customerId));
  }

  const systemChanges = createSystemChanges({
    log,
    customersOfSystems: deps.customersOfSystems,
    setOwner: (systemId, customerId) => systemTopics.setOwner(systemId, customerId),
    announce: (customerId, systemIds) =>
      deliver(CHANGES, { topic: 'systems', ids: systemIds } satisfies LiveChange, { customerId }),
  });

  function onSystems(event: unknown) {
    snapshots.invalidate();
    // a system may have moved to another customer (or gone): re-read who may follow it
    const id = (event as { id?: unknown } | null)?.id;
    if (typeof id === 'number') systemChanges.add(id);
    else for (const systemId of systemTopics.followed()) void systemTopics.refreshOwner(systemId);
  }

  function onChange(event: unknown) {
    const change = parseChangeEvent(event);
    if (!change) {
      log.warn('Ignored a malformed change event on the bus');
      return;
    }
    deliver(CHANGES, { topic: change.topic, ids: change.ids } satisfies LiveChange, change.reach);
    if (OVERVIEW_CHANGES.has(change.topic)) snapshots.invalidate(['overview']);
  }

  const recheck = (conns: Connection[]) => recheckConnections(deps.credentials, conns);

  function onRights(event: unknown) {
    const userId = (event as { userId?: unknown } | null)?.userId;
    const conns = typeof userId === 'number' ? [...(byUser.get(userId) ?? [])] : [...connections];
    void recheck(conns).catch((error: unknown) => log.error({ err: error }, 'Live rights check failed'));
  }

  function removeSub(sub: Subscription) {
    sub.conn.subs.delete(sub.sid);
    if (isSnapshotTopic(sub.topic)) {
      snapshots.unsubscribe(sub.conn.audience, sub.topic.kind, sub);
      return;
    }
    const set = topicSubs.get(sub.topic.name);
    set?.delete(sub);
    if (set?.size === 0) topicSubs.delete(sub.topic.name);
  }

  async function subscribe(conn: Connection, sid: string, topic: Topic, after: string | null) {
    if (topic.kind === 'system') {
      let owner: number | null;
      try {
        owner = await deps.customerOfSystem(topic.systemId);
      } catch {
        send(conn, frames.error('Try again later', sid));
        return;
      }
      // an invisible system and a missing one answer alike (never leak existence)
      if (owner === null || !reaches(conn.principal, { customerId: owner })) {
        send(conn, frames.error('topic: no such topic', sid));
        return;
      }
      if (conn.closing) return;
      systemTopics.follow(topic.systemId, owner);
    }
    const previous = conn.subs.get(sid);
    if (previous) removeSub(previous);
    if (conn.subs.size >= MAX_SUBSCRIPTIONS) {
      send(conn, frames.error('Too many subscriptions', sid));
      return;
    }
    const sub: Subscription = {
      conn,
      sid,
      sidJson: JSON.stringify(sid),
      topic,
      sentRev: 0,
      send: (frame) => send(conn, frame),
    };
    conn.subs.set(sid, sub);
    if (isSnapshotTopic(topic)) {
      snapshots.subscribe(conn.audience, topic.kind, sub);
      return;
    }
    // replay and registration in one synchronous step: nothing is missed or sent twice
    const from = after === null ? null : parseMessageId(after);
    if (from && from.runId === runId) {
      for (const entry of replay.since(topic.name, from.seq)) {
        if (mayReceive(conn, topic, entry.reach))
          send(conn, frames.msg(sub.sidJson, `${runId}-${entry.seq}`, entry.dataJson));
      }
    }
    let set = topicSubs.get(topic.name);
    if (!set) {
      set = new Set();
      topicSubs.set(topic.name, set);
    }
    set.add(sub);
  }

  function onFrame(conn: Connection, data: RawData, isBinary: boolean) {
    if (floods(conn, Date.now())) {
      closeWith(conn, CLOSE_POLICY, 'Too many frames');
      return;
    }
    if (isBinary) {
      send(conn, frames.error('Send JSON text frames'));
      return;
    }
    const parsed = parseClientFrame(data.toString());
    if (!parsed.ok) {
      send(conn, frames.error(parsed.error, parsed.sid));
      return;
    }
    const frame = parsed.frame;
    if (frame.t === 'unsub') {
      const sub = conn.subs.get(frame.sid);
      if (sub) removeSub(sub);
      else send(conn, frames.error('sid: no such subscription', frame.sid));
      return;
    }
    subscribe(conn, frame.sid, frame.topic, frame.after).catch((error: unknown) => {
      log.error({ err: error }, 'Live subscribe failed');
      send(conn, frames.error('Subscription failed', frame.sid));
    });
  }

  function accept(ws: WebSocket, principal: Principal) {
    const conn: Connection = {
      ws,
      principal,
      audience: snapshots.join(visibleTo(principal)),
      subs: new Map(),
      missedPongs: 0,
      windowStart: Date.now(),
      framesInWindow: 0,
      closing: false,
    };
    connections.add(conn);
    metrics.socketOpened();
    let mine = byUser.get(principal.userId);
    if (!mine) {
      mine = new Set();
      byUser.set(principal.userId, mine);
    }
    mine.add(conn);
    ws.on('message', (data, isBinary) => onFrame(conn, data, isBinary));
    ws.on('pong', () => (conn.missedPongs = 0));
    ws.on('error', () => undefined); // 1009 (too big) and protocol errors close the socket; nothing to add
    ws.on('close', () => {
      conn.closing = true;
      for (const sub of [...conn.subs.values()]) removeSub(sub);
      connections.delete(conn);
      metrics.socketClosed();
      const set = byUser.get(principal.userId);
      set?.delete(conn);
      if (set?.size === 0) byUser.delete(principal.userId);
      snapshots.leave(conn.audience);
    });
    ws.send(frames.ready());
    metrics.messageSent();
  }

  /** Every 25 s: ping, drop peers that missed two pings, re-read rights, refresh snapshots. */
  function heartbeat() {
    for (const conn of connections) {
      if (conn.closing) continue;
      if (conn.missedPongs >= 2) {
        conn.closing = true;
        conn.ws.terminate();
        continue;
      }
      conn.missedPongs += 1;
      conn.ws.ping();
    }
    void recheck([...connections]).catch((error: unknown) => log.error({ err: error }, 'Live rights check failed'));
    void refreshChangedSnapshots();
    systemTopics.dropIdle(Date.now());
  }

  return {
    runId,

    /** Subscribes to the bus and starts the heartbeat. */
    async start(): Promise<void> {
      busOffs.push(
        bus.subscribe(ALERT_TOPIC, onAlert),
        bus.subscribe('systems', onSystems),
        bus.subscribe('rights', onRights),
        bus.subscribe(CHANGES_TOPIC, onChange),
      );
      await Promise.all(busOffs);
      stopTicker = (deps.ticker ?? realTicker).every(PING_INTERVAL_MS, heartbeat);
    },

    /** The HTTP server's `upgrade` listener: 401 before the upgrade unless authenticated with an accepted Origin. */
    async handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
      socket.on('error', () => undefined);
      const path = (req.url ?? '').split('?')[0];
      if (path !== LIVE_PATH) return rejectUpgrade(socket, 404, 'Not Found');
      if (closing) return rejectUpgrade(socket, 503, 'Service Unavailable');
      let principal: Principal | null;
      try {
        principal = await deps.authenticate(req);
      } catch (error) {
        log.error({ err: error }, 'Live authentication failed');
        return rejectUpgrade(socket, 503, 'Service Unavailable');
      }
      if (!principal) return rejectUpgrade(socket, 401, 'Unauthorized');
      if (socket.destroyed || closing) return;
      wss.handleUpgrade(req, socket, head, (ws) => accept(ws, principal));
    },

    stats: () => ({
      connections: connections.size,
      subscriptions: [...connections].reduce((sum, conn) => sum + conn.subs.size, 0),
      audiences: snapshots.audienceCount(),
      replay: replay.stats(),
    }),

    /** Shutdown: every socket closes with 1001 (clients reconnect to the next instance). */
    async close(timeoutMs = 2_000): Promise<void> {
      closing = true;
      stopTicker?.();
      systemChanges.close();
      snapshots.close();
      for (const conn of connections) closeWith(conn, CLOSE_GOING_AWAY, 'Server shutting down');
      const deadline = Date.now() + timeoutMs;
      while (connections.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      for (const conn of connections) conn.ws.terminate();
      const offs = [...busOffs, ...systemTopics.offs()];
      await Promise.all(offs.map((off) => off.then((fn) => fn()).catch(() => undefined)));
      wss.close();
    },
  };
}

export type LiveHub = ReturnType<typeof createLiveHub>;
