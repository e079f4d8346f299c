/** A reboot is sent once: on the first report after the boot id changed, remembered once buffered. */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { bootWatch } from '../src/events.js';
import { fixtureHost } from './fixture-host.js';

describe('the reboot event', () => {
  it('is sent once per boot, not on the very first start, and again if the report never reached the buffer', async () => {
    const state = await mkdtemp(join(tmpdir(), 'argus-boot-'));
    try {
      const files = { '/proc/sys/kernel/random/boot_id': 'aaaa-1\n', '/proc/uptime': '120.00 200.00\n' };
      const host = fixtureHost({ files, statfs: {} });
      const first = bootWatch(host, state);
      assert.deepEqual(await first.events(), [], 'the first start knows no earlier boot');
      await first.commit();
      files['/proc/sys/kernel/random/boot_id'] = 'bbbb-2\n';
      const afterReboot = bootWatch(fixtureHost({ files, statfs: {} }), state);
      const [event, ...more] = await afterReboot.events();
      assert.equal(more.length, 0);
      assert.equal(event?.type, 'system.reboot');
      assert.match(event?.message ?? '', /^The host booted at \d{4}-\d\d-\d\dT/);
      // the agent crashed before buffering that report: the next start sends it again
      assert.equal((await bootWatch(fixtureHost({ files, statfs: {} }), state).events()).length, 1);
      await afterReboot.commit();
      assert.deepEqual(await bootWatch(fixtureHost({ files, statfs: {} }), state).events(), [], 'sent once');
    } finally {
      await rm(state, { recursive: true, force: true });
    }
  });
});
