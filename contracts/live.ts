/**
 * The `data` of the live channel's topics (/api/live, docs/api.md "Live channel"). A WebSocket is
 * not in the OpenAPI document: the server's producers are typed with these schemas and the live
 * tests parse what they receive with them; the console takes the types. `systems.list` (snap) is
 * the `GET /api/systems` array (contracts/systems.ts), which the HTTP answer checks already cover;
 * `overview` (snap) is the `GET /api/overview` answer (contracts/overview.ts).
 */
import { z } from 'zod';
import { id, instant } from './common.js';

/** What a `changes` message names: the services' change topics, and `systems` and `alerts` from the hub. */
export const liveChangeTopic = z.enum([
  'rules',
  'maintenance',
  'customers',
  'users',
  'agent-settings',
  'systems',
  'alerts',
  'channels',
  'policies',
  'incidents',
]);
export type LiveChangeTopic = z.infer<typeof liveChangeTopic>;

/** `changes` (msg): what changed, so a console reloads only what it shows. */
export const liveChange = z.object({ topic: liveChangeTopic, ids: z.array(id) });
export type LiveChange = z.infer<typeof liveChange>;

const count = z.number().int().min(0);

/** `alerts.counts` (snap): the open alerts the account may see. */
export const alertCounts = z.object({
  open: count,
  critical: count,
  warning: count,
  info: count,
  unacknowledged: count,
});
export type AlertCounts = z.infer<typeof alertCounts>;

/** `system:<id>` (msg): one stored report of that system. */
export const liveReport = z.object({
  ts: instant,
  metrics: z.array(z.object({ name: z.string(), instance: z.string(), value: z.number() })),
});
export type LiveReport = z.infer<typeof liveReport>;
