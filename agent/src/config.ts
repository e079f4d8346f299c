/**
 * The agent's config.yaml (written by the installer from GET /api/agent/config): flat `key: value`
 * lines. Only that flat subset of YAML is read — the server writes every value as a double-quoted
 * scalar (backend/src/agents/config-file.ts), an admin may write plain ones — so the agent carries
 * no YAML library. Unknown keys are refused: a typo must not silently leave a default in place.
 */
import { readFile } from 'node:fs/promises';
import { DEFAULT_CHECKS_DIR } from './collectors/scripts.js';
import { DEFAULT_TEXTFILE_DIR } from './collectors/textfile.js';

export interface AgentConfig {
  webhookUrl: string;
  webhookSecret: string;
  /** The cluster's enrolment key: sent on the first report only. */
  enrollment: string | null;
  /** Where the agent keeps its key, machine id and buffer. */
  stateDir: string;
  /** Seconds between reports unless the server's settings say otherwise. */
  interval: number;
  /** Script checks: the directory of executables the agent runs (root's, see collectors/scripts.ts). */
  checksDir: string;
  /** Drop-in metrics: the directory of `*.prom` files. */
  textfileDir: string;
}

const KEYS = new Set([
  'webhook_url',
  'webhook_secret',
  'enrollment',
  'state_dir',
  'interval',
  'checks_dir',
  'textfile_dir',
]);

export class ConfigError extends Error {}

/** A double-quoted YAML scalar's text (\", \\, \uXXXX, \UXXXXXXXX), or a plain scalar trimmed. */
function scalar(raw: string, line: number): string {
  const text = raw.trim();
  if (!text.startsWith('"')) return text.replace(/\s+#.*$/, '');
  const match = /^"((?:[^"\\]|\\.)*)"\s*(#.*)?$/.exec(text);
  if (!match) throw new ConfigError(`line ${line}: an unterminated quoted value`);
  return (match[1] as string).replace(/\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)/g, (_, escape: string) =>
    escape.length > 1 ? String.fromCodePoint(parseInt(escape.slice(1), 16)) : escape === 'n' ? '\n' : escape,
  );
}

export function parseConfig(text: string): AgentConfig {
  const values = new Map<string, string>();
  text.split('\n').forEach((rawLine, index) => {
    const line = rawLine.replace(/\r$/, '');
    if (!line.trim() || line.trim().startsWith('#')) return;
    const match = /^([a-z_]+)\s*:(.*)$/.exec(line);
    if (!match) throw new ConfigError(`line ${index + 1}: expected "key: value"`);
    const key = match[1] as string;
    if (!KEYS.has(key)) throw new ConfigError(`line ${index + 1}: unknown key ${key}`);
    values.set(key, scalar(match[2] as string, index + 1));
  });
  const required = (key: string) => {
    const value = values.get(key);
    if (!value) throw new ConfigError(`${key} is missing`);
    return value;
  };
  const webhookUrl = required('webhook_url');
  if (!/^https?:\/\//.test(webhookUrl)) throw new ConfigError('webhook_url must be an http(s) URL');
  const interval = Number(values.get('interval') ?? 30);
  if (!Number.isInteger(interval) || interval < 5 || interval > 3600)
    throw new ConfigError('interval must be a whole number of seconds from 5 to 3600');
  return {
    webhookUrl,
    webhookSecret: required('webhook_secret'),
    enrollment: values.get('enrollment') || null,
    stateDir: values.get('state_dir') || '/var/lib/argus-agent',
    interval,
    // in the root-owned config, never an agent setting: the server must not choose what runs
    checksDir: values.get('checks_dir') || DEFAULT_CHECKS_DIR,
    textfileDir: values.get('textfile_dir') || DEFAULT_TEXTFILE_DIR,
  };
}

export async function readConfig(path: string): Promise<AgentConfig> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new ConfigError(`cannot read ${path}: ${error.code ?? error.message}`);
  });
  return parseConfig(text);
}
