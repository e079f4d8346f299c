/**
 * Frames of `/api/live` (docs/protocol.md "Live channel"): JSON
 * text frames whose `t` names the type. Client frames are
 * parsed here; anything malformed becomes an `error` frame, never a close.
 */
export const LIVE_PATH = '/api/live';

export type Topic =
  | { kind: 'alert'; name: 'alert' }
  | { kind: 'changes'; name: 'changes' }
  | { kind: 'systems.list'; name: 'systems.list' }
  | { kind: 'alerts.counts'; name: 'alerts.counts' }
  | { kind: 'overview'; name: 'overview' }
  | { kind: 'system'; name: string; systemId: number };

export type SnapshotTopic = 'systems.list' | 'alerts.counts' | 'overview';
export const SNAPSHOT_TOPICS: readonly SnapshotTopic[] = ['systems.list', 'alerts.counts', 'overview'];

export const isSnapshotTopic = (topic: Topic): topic is Topic & { kind: SnapshotTopic } =>
  (SNAPSHOT_TOPICS as readonly string[]).includes(topic.kind);

export type ClientFrame = { t: 'sub'; sid: string; topic: Topic; after: string | null } | { t: 'unsub'; sid: string };

export type Parsed = { ok: true; frame: ClientFrame } | { ok: false; sid?: string; error: string };

const SID = /^[\x21-\x7e]{1,64}$/;
const MAX_SYSTEM_ID = 2_147_483_647;

export function parseTopic(value: unknown): Topic | null {
  if (value === 'alert') return { kind: 'alert', name: 'alert' };
  if (value === 'changes') return { kind: 'changes', name: 'changes' };
  if (value === 'systems.list') return { kind: 'systems.list', name: 'systems.list' };
  if (value === 'alerts.counts') return { kind: 'alerts.counts', name: 'alerts.counts' };
  if (value === 'overview') return { kind: 'overview', name: 'overview' };
  if (typeof value !== 'string') return null;
  const match = /^system:([1-9][0-9]{0,9})$/.exec(value);
  const systemId = match?.[1] ? Number(match[1]) : NaN;
  if (!Number.isSafeInteger(systemId) || systemId > MAX_SYSTEM_ID) return null;
  return { kind: 'system', name: `system:${systemId}`, systemId };
}

/** One client frame, or the error to answer it with (naming the field, as HTTP 400s do). */
export function parseClientFrame(text: string): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: 'Not JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, error: 'A frame is a JSON object' };
  const frame = value as Record<string, unknown>;
  const sid = typeof frame['sid'] === 'string' && SID.test(frame['sid']) ? frame['sid'] : undefined;
  const withSid = sid === undefined ? {} : { sid };
  if (frame['t'] === 'unsub') {
    if (!sid) return { ok: false, error: 'sid: a string of 1 to 64 printable characters' };
    return { ok: true, frame: { t: 'unsub', sid } };
  }
  if (frame['t'] !== 'sub') return { ok: false, ...withSid, error: 't: unknown frame type' };
  if (!sid) return { ok: false, error: 'sid: a string of 1 to 64 printable characters' };
  const topic = parseTopic(frame['topic']);
  if (!topic) return { ok: false, sid, error: 'topic: unknown topic' };
  const after = frame['after'] ?? null;
  // a well-formed id of an earlier run is fine (it replays nothing); anything else is a client bug
  if (after !== null && (typeof after !== 'string' || after.length > 64 || parseMessageId(after) === null))
    return { ok: false, sid, error: 'after: a message id or null' };
  return { ok: true, frame: { t: 'sub', sid, topic, after } };
}

/** Message ids are `<runId>-<seq>`: an id of another run (a restart) replays nothing. */
export function parseMessageId(id: string): { runId: string; seq: number } | null {
  const dash = id.lastIndexOf('-');
  if (dash <= 0) return null;
  const seq = Number(id.slice(dash + 1));
  return Number.isSafeInteger(seq) && seq >= 0 ? { runId: id.slice(0, dash), seq } : null;
}

/** Frames are built by concatenation so a payload is serialised once, not once per socket. */
export const frames = {
  ready: () => '{"t":"ready"}',
  error: (error: string, sid?: string) =>
    JSON.stringify(sid === undefined ? { t: 'error', error } : { t: 'error', sid, error }),
  msg: (sidJson: string, id: string, dataJson: string) =>
    `{"t":"msg","sid":${sidJson},"id":"${id}","data":${dataJson}}`,
  snap: (sidJson: string, rev: number, dataJson: string) =>
    `{"t":"snap","sid":${sidJson},"rev":${rev},"data":${dataJson}}`,
};
