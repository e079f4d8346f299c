/**
 * The limits and patterns of the agent's report body as plain values, without zod: the agent takes
 * them from here, so its executable does not load the schema library for a few numbers and patterns
 * (agent-report.ts re-exports them beside the schemas that use them).
 */
export const MAX_REPORTS = 500;
export const MAX_METRICS_PER_REPORT = 2000;
export const MAX_EVENTS_PER_REPORT = 100;
export const MAX_CHECK_RUNS_PER_REPORT = 500;
/** Script checks' states a report may carry (docs/protocol.md "Script checks and drop-in metrics"). */
export const MAX_CHECKS_PER_REPORT = 100;
export const CHECK_STATES = ['OK', 'WARNING', 'CRITICAL', 'UNKNOWN'] as const;
/** A check's message: the first line of its output, cut to this length by the agent. */
export const MAX_CHECK_MESSAGE_LENGTH = 512;

/** Containers a report may describe (the agent sends its first 120 by name). */
export const MAX_CONTAINERS_PER_REPORT = 120;
/** A container's image as the engine names it: a reference (registry/name:tag@digest) or an image id. */
export const MAX_IMAGE_LENGTH = 512;

/** Control characters, lone surrogates and line/paragraph separators are not printable. */
export const PRINTABLE = /^[^\p{Cc}\p{Cs}\p{Zl}\p{Zp}]*$/u;
/** A metric's (and an event type's) name. */
export const METRIC_NAME = /^[a-z0-9_.]{1,64}$/;
export const MAX_INSTANCE_LENGTH = 128;
export const MAX_MESSAGE_LENGTH = 1024;
export const EVENT_SEVERITIES = ['INFO', 'WARNING', 'CRITICAL'] as const;
/** The longest of each of the agent's texts. */
export const MAX_AGENT_TEXT = { version: 64, hostname: 255, os: 255, kernel: 255, arch: 64, enrollment: 256 } as const;
export const MAX_CORES = 1_000_000;
