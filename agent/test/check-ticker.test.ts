/**
 * The check scheduler's one-second ticker runs only while the server has assigned checks: most
 * agents have none, and a wake-up a second costs an idle agent ~0.2 ms of CPU each, 5 ms between
 * two reports at the default 30 s interval. A check assigned later starts it (and runs at once), an
 * empty list stops it, and so does the agent's stop.
 */
import assert from 'node:assert/strict';
import net, { type AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { createCheckScheduler } from '../src/checks.js';
import { until } from './link.js';

describe('the network checks ticker', () => {
  it('ticks only while checks are assigned, and stops with the agent', async () => {
    const server = net.createServer((socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const checks = createCheckScheduler({ log: () => undefined });
    const stop = new AbortController();
    try {
      checks.start(stop.signal);
      assert.equal(checks.figures().ticking, false, 'nothing assigned: no ticker');

      const check = {
        id: 7,
        settings: { type: 'tcp', host: '127.0.0.1', port },
        intervalSeconds: 60,
        timeoutSeconds: 5,
        retryIntervalSeconds: 60,
        maxResponseMs: null,
      };
      await checks.assign([check]);
      assert.equal(checks.figures().ticking, true, 'a check assigned: the ticker runs');
      await until('the new check ran at once', async () => checks.take().some((run) => run.id === 7 && run.up), 5000);

      await checks.assign([]);
      assert.equal(checks.figures().ticking, false, 'none left: the ticker stops');

      await checks.assign([check]);
      stop.abort();
      assert.equal(checks.figures().ticking, false, 'the agent stopping stops it');
      await checks.assign([check]);
      assert.equal(checks.figures().ticking, false, 'and an answer after the stop does not start it again');
    } finally {
      stop.abort();
      server.close();
    }
  });
});
