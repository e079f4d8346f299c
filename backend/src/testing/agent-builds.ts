/** Agent releases as an operator drops them into AGENT_DIST_DIR, with small fake builds (sh scripts). */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** A fake build: a script that says which build it is. */
export const fakeBuild = (label: string) => Buffer.from(`#!/bin/sh\necho fake argus-agent ${label}\n`);
export const sha256Of = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** `<dir>/<version>/argus-agent-linux-<arch>` and its manifest; `lie` writes a checksum the files do not have. */
export async function writeRelease(dir: string, version: string, files: Record<string, Buffer>, lie = false) {
  await mkdir(path.join(dir, version), { recursive: true });
  const manifest: Record<string, { sha256: string; size: number }> = {};
  for (const [arch, data] of Object.entries(files)) {
    await writeFile(path.join(dir, version, `argus-agent-linux-${arch}`), data);
    manifest[arch] = { sha256: lie ? sha256Of(Buffer.from('other')) : sha256Of(data), size: data.length };
  }
  await writeFile(path.join(dir, version, 'manifest.json'), JSON.stringify({ version, files: manifest }));
}
