/**
 * Flapping through the real run: the sixth raise within an hour is notified as
 * `flapping` instead of `raised`, the alert then stays open through further flaps and resolves,
 * notified once, after its condition has been clear for 30 minutes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { routeGlobally, sealedWebhook } from '../testing/channels.js';
import { MINUTE, withHarness } from '../testing/evaluation-harness.js';
import { startWebhookReceiver } from '../testing/webhook-receiver.js';
import { FLAP_RAISES } from './flapping.js';

describe('flapping', () => {
  it('turns the sixth raise in an hour into one flapping alert, open until clear for half the window', () =>
    withHarness(async (h) => {
      const hook = await startWebhookReceiver();
      try {
        await routeGlobally(h.knex, [await sealedWebhook(h.knex, h.box, `${hook.url}/hook`)]);
        const system = await h.system();
        const readonly = async (value: number) => {
          h.clock.advance(MINUTE);
          await h.report(system.id, [{ name: 'disk.readonly', instance: '/', value }]);
          await h.run();
        };

        for (let flap = 0; flap < FLAP_RAISES; flap++) {
          await readonly(1);
          await readonly(0);
        }
        assert.equal(hook.received.length, 2 * FLAP_RAISES, 'each flap notified so far');
        await readonly(1);
        assert.equal(hook.events().at(-1), 'flapping');
        const [alert] = await h.openAlerts(system.id);
        assert.ok(alert.flapping_since, 'marked flapping');

        // flaps keep it open, quietly; a return of the condition restarts the quiet half hour
        for (let minute = 0; minute < 10; minute++) await readonly(0);
        await readonly(1);
        for (let minute = 0; minute < 29; minute++) await readonly(0);
        assert.equal(hook.received.length, 2 * FLAP_RAISES + 1, 'nothing per flap');
        assert.equal((await h.openAlerts(system.id)).length, 1, 'still open: not clear for 30 minutes yet');
        await readonly(0);
        await readonly(0);
        assert.equal(hook.events().at(-1), 'resolved');
        assert.equal(hook.received.length, 2 * FLAP_RAISES + 2);
        assert.deepEqual(await h.openAlerts(system.id), []);
        const resolved = await h.knex('alerts').where({ id: alert.id }).first();
        assert.equal(resolved.state, 'resolved');
      } finally {
        await hook.close();
      }
    }));
});
