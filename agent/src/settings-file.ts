/**
 * The agent settings of the server's last answer and the network checks assigned to the agent, kept
 * in `<state_dir>/settings.json` so that after a restart the agent watches what it was asked to
 * (services, certificates, backups, checks) from its first report, not only from the first answer.
 * Written only when the server's `settings_rev` changes.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface SavedSettings {
  rev: string;
  settings: Record<string, unknown>;
  /** The answer's `checks` (none: an empty list). */
  checks?: unknown[];
}

export async function loadSettings(stateDir: string): Promise<SavedSettings> {
  return readFile(join(stateDir, 'settings.json'), 'utf8').then(
    (text) => {
      const saved = JSON.parse(text) as Partial<SavedSettings>;
      return { rev: String(saved.rev ?? ''), settings: saved.settings ?? {}, checks: saved.checks ?? [] };
    },
    () => ({ rev: '', settings: {}, checks: [] }),
  );
}

export async function saveSettings(stateDir: string, saved: SavedSettings): Promise<void> {
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  const file = join(stateDir, 'settings.json');
  // secrets may be among them (agent settings marked secret): owner-only, like the config
  await writeFile(`${file}.tmp`, JSON.stringify(saved), { mode: 0o600 });
  await rename(`${file}.tmp`, file);
}
