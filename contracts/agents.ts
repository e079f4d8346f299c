/** The agent side of the API: ingest answers, builds, rollout, agent settings (docs/protocol.md "Agent protocol"). */
import { z } from 'zod';
import { agentCheck } from './checks.js';
import { id, instant } from './common.js';

/** The request header that carries a cluster's enrolment key (never a URL: proxies and access logs keep URLs). */
export const ENROLLMENT_KEY_HEADER = 'Argus-Enrollment-Key';

/**
 * The one-line installer as the console shows it (a cluster's `installCommand`). `printf` is a shell
 * builtin, so the key reaches curl through a pipe (`-H @-`): never in a URL or on a command line (`ps`).
 * The script asks for sudo itself when not run as root. The key is base64url; quoted all the same.
 */
export function installCommand(base: string, key: string): string {
  const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
  return `printf '${ENROLLMENT_KEY_HEADER}: %s\\n' ${quote(key)} | curl -fsSL -H @- ${quote(`${base}/api/agent/install.sh`)} | sh`;
}

export const agentOffer = z
  .object({ version: z.string(), url: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/) })
  .meta({ id: 'AgentBuild' });
export type AgentOffer = z.infer<typeof agentOffer>;

export const ingestAnswer = z
  .object({
    accepted: z.number().int().min(0),
    duplicates: z.number().int().min(0),
    skipped: z.number().int().min(0),
    /** Only on the report that enrolled the system: sign later tokens with it. */
    agentKey: z.string().optional(),
    settings: z.record(z.string(), z.unknown()),
    /** A hash of `settings` and `checks`: the agent keeps both anew when it changes. */
    settings_rev: z.string(),
    /** The network checks assigned to this agent; absent when none is. */
    checks: z.array(agentCheck).optional(),
    update: agentOffer.nullable(),
  })
  .meta({ id: 'IngestAnswer' });
export type IngestAnswer = z.infer<typeof ingestAnswer>;

export const rolloutMode = z.object({ mode: z.enum(['all', 'canary']) }).meta({ id: 'RolloutMode' });
export type RolloutMode = z.infer<typeof rolloutMode>;

/** A canary rollout of one version at one customer and architecture (GET /api/agent-rollouts). */
export const agentRollout = z
  .object({
    id,
    customerId: id,
    customerName: z.string(),
    arch: z.string(),
    version: z.string(),
    /** `canary`: only the canary is offered the build; `released`: everyone; `halted`: nobody, until resumed. */
    state: z.enum(['canary', 'released', 'halted']),
    canary: z.object({ id, name: z.string() }).nullable(),
    startedAt: instant,
    changedAt: instant,
  })
  .meta({ id: 'AgentRollout' });
export type AgentRollout = z.infer<typeof agentRollout>;

export const agentRolloutList = z.object({ rollouts: z.array(agentRollout) }).meta({ id: 'AgentRolloutList' });
export type AgentRolloutList = z.infer<typeof agentRolloutList>;

const settingScope = z.object({ type: z.enum(['cluster', 'system']), id });

export const agentSetting = z
  .object({
    id,
    scope: settingScope,
    key: z.string(),
    secret: z.boolean(),
    /** null for a secret: accepted, never returned. */
    value: z.string().nullable(),
    updatedAt: instant,
  })
  .meta({ id: 'AgentSetting' });
export type AgentSetting = z.infer<typeof agentSetting>;

export const agentSettingsListing = z
  .object({
    settings: z.array(agentSetting),
    /** For a system: what its agent gets (cluster layer, then the system's own on top), secrets masked. */
    effective: z
      .array(z.object({ key: z.string(), secret: z.boolean(), value: z.string().nullable(), from: settingScope }))
      .optional(),
  })
  .meta({ id: 'AgentSettingsListing' });
export type AgentSettingsListing = z.infer<typeof agentSettingsListing>;

// --- the request bodies of /api/agent-settings (the console sends them; the routes parse them) ---

const KEY_PATTERN = /^[a-z][a-z0-9_.-]{0,63}$/;
/** Printable text; tab and line breaks allowed (certificates, multi-line tokens). */
const VALUE_PATTERN = /^(?:[\t\n\r]|[^\p{Cc}\p{Cs}])*$/u;

const settingScopeId = z.number({ error: 'must be a number' }).int().positive().max(2_147_483_647);
const value = z
  .string({ error: 'must be a string' })
  .max(8192, 'at most 8192 characters')
  .regex(VALUE_PATTERN, 'must not contain control characters');

/** POST /api/agent-settings. */
export const newAgentSettingBody = z
  .object({
    scope: z.object({
      type: z.enum(['cluster', 'system'], { error: 'must be "cluster" or "system"' }),
      id: settingScopeId,
    }),
    key: z
      .string({ error: 'is required' })
      .regex(KEY_PATTERN, 'must start with a-z and hold up to 64 of a-z, 0-9, "_", "." and "-"'),
    value,
    secret: z.boolean({ error: 'must be true or false' }).default(false),
  })
  .strict();
export type NewAgentSetting = z.input<typeof newAgentSettingBody>;

/** PATCH /api/agent-settings/:id: a secret's `value` left out keeps the stored one. */
export const agentSettingChangesBody = z
  .object({ value, secret: z.boolean({ error: 'must be true or false' }) })
  .partial()
  .strict();
export type AgentSettingChanges = z.input<typeof agentSettingChangesBody>;
