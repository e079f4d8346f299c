/**
 * Events the agent sends once each. A reboot: the kernel's boot id changed since
 * the last report the buffer took (kept in `<state_dir>/boot.json`); the event rides on the first
 * report after it and is remembered as sent only once that report is in the buffer, so a crash in
 * between sends it again rather than never. OOM kills and failed services come from the journal
 * (journal.ts); `eventWatches` puts the sources together for the runner.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Host } from './host.js';
import type { AgentEvent } from './sample.js';

export function bootWatch(host: Host, stateDir: string) {
  const file = join(stateDir, 'boot.json');
  let current: string | null = null;
  /** The boot id boot.json holds, once read: written again only when it changes, not every report. */
  let recorded: string | null | undefined;
  return {
    /** The events for the next report: a reboot when the boot id differs from the one last recorded. */
    async events(): Promise<AgentEvent[]> {
      current = (await host.read('/proc/sys/kernel/random/boot_id'))?.trim() || null;
      recorded ??= await readFile(file, 'utf8').then(
        (text) => (JSON.parse(text) as { bootId?: string }).bootId ?? null,
        () => null,
      );
      const known = recorded;
      if (!current || !known || known === current) return [];
      const uptime = Number(((await host.read('/proc/uptime')) ?? '').split(/\s+/)[0]);
      const booted = Number.isFinite(uptime) ? new Date(Date.now() - uptime * 1000).toISOString() : 'recently';
      return [{ type: 'system.reboot', severity: 'INFO', message: `The host booted at ${booted}` }];
    },
    /** The report carrying them is in the buffer: remember this boot. */
    async commit(): Promise<void> {
      if (!current || current === recorded) return;
      await mkdir(stateDir, { recursive: true, mode: 0o700 });
      await writeFile(`${file}.tmp`, JSON.stringify({ bootId: current }), { mode: 0o600 });
      await rename(`${file}.tmp`, file);
      recorded = current;
    },
  };
}

export type BootWatch = ReturnType<typeof bootWatch>;

/** Several sources of events as one: the report carries all of theirs, and all commit together. */
export function eventWatches(...watches: BootWatch[]): BootWatch {
  return {
    events: async () => (await Promise.all(watches.map((watch) => watch.events()))).flat(),
    commit: async () => {
      for (const watch of watches) await watch.commit();
    },
  };
}
