/**
 * Who this agent is to the server: `sub` (a stable machine id) and, once the first report was
 * accepted, the agent key the server handed out (sent as claim `ak`). Kept in the state directory,
 * mode 0600, written whole or not at all (a temporary file renamed over the old one).
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Host } from './host.js';

export interface Identity {
  sub: string;
  agentKey: string | null;
}

const FILE = 'identity.json';

export async function loadIdentity(stateDir: string, host: Host): Promise<Identity> {
  const saved = await readFile(join(stateDir, FILE), 'utf8').then(
    (text) => JSON.parse(text) as Partial<Identity>,
    () => null,
  );
  if (saved?.sub) return { sub: saved.sub, agentKey: saved.agentKey ?? null };
  // systemd's machine id where there is one (stable across reinstalls of the agent), else our own
  const machineId = (await host.read('/etc/machine-id'))?.trim();
  const identity = { sub: machineId && /^[0-9a-f]{32}$/.test(machineId) ? machineId : randomUUID(), agentKey: null };
  await saveIdentity(stateDir, identity);
  return identity;
}

export async function saveIdentity(stateDir: string, identity: Identity): Promise<void> {
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  const temporary = join(stateDir, `${FILE}.${process.pid}.tmp`);
  await writeFile(temporary, `${JSON.stringify(identity)}\n`, { mode: 0o600 });
  await rename(temporary, join(stateDir, FILE));
}
