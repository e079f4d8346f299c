/**
 * Connections under the outbound policy against a real TCP listener on loopback: refused by name,
 * by address and by numeric spelling before any connection is made, made with the opt-in, and a
 * name is refused when any of its addresses is.
 */
import assert from 'node:assert/strict';
import net, { type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { connectOutbound, OutboundRefused, resolveOutbound } from './outbound-connect.js';

describe('outbound connections', () => {
  let server: net.Server;
  let port: number;
  let connections = 0;

  before(async () => {
    server = net.createServer((socket) => {
      connections += 1;
      socket.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('refuses loopback by name and in every spelling before connecting', async () => {
    for (const host of ['localhost', '127.0.0.1', '127.1', '2130706433', '0x7f000001', '[::ffff:127.0.0.1]']) {
      await assert.rejects(
        connectOutbound({ host, port }, { allowPrivate: false }),
        (error) => error instanceof OutboundRefused && /127\.0\.0\.1|::1/.test(error.message),
        host,
      );
    }
    assert.equal(connections, 0);
  });

  it('connects with the opt-in, to the address that was checked', async () => {
    const socket = await connectOutbound({ host: '127.1', port }, { allowPrivate: true });
    assert.equal(socket.remoteAddress, '127.0.0.1');
    socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(connections, 1);
  });

  it('refuses a name when one of its addresses is refused, and never resolves a literal', async () => {
    const own = { allowPrivate: false, ownAddresses: () => [] };
    await assert.rejects(resolveOutbound('localhost', own), OutboundRefused);
    assert.deepEqual(await resolveOutbound('8.8.8.8', own), ['8.8.8.8']);
    assert.deepEqual(await resolveOutbound('[::ffff:8.8.8.8]', own), ['::ffff:808:808']);
    await assert.rejects(resolveOutbound('no-such-host.invalid', own), { code: 'ENOTFOUND' });
  });
});
