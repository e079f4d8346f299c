/**
 * The agent's connection to an https server is kept between reports (agent/src/send.ts): a real
 * node:https server with a self-signed certificate the agent's process trusts, closing idle
 * connections after its keepAliveTimeout as a proxy does after its keepalive_timeout. It counts the
 * TLS connections, the requests it read and whether a connection resumed a TLS session.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TLSSocket } from 'node:tls';
import { promisify } from 'node:util';

const run = promisify(execFile);
const STEPS = new URL('./post-steps.ts', import.meta.url).pathname;

interface Sink {
  url: string;
  connections: { resumed: boolean }[];
  requests: number;
  close(): void;
}

describe('the agent keeps its https connection between reports', () => {
  let dir: string;
  let tls: { key: Buffer; cert: Buffer; certFile: string };
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'argus-kept-connection-'));
    const certFile = join(dir, 'cert.pem');
    await run('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1',
      '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', certFile,
    ]); // prettier-ignore
    tls = { key: await readFile(join(dir, 'key.pem')), cert: await readFile(certFile), certFile };
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** A server that closes a connection idle for `keepAliveMs`; `onRequest` answers unless told otherwise. */
  async function sink(keepAliveMs: number, onRequest?: (socket: TLSSocket) => void): Promise<Sink> {
    const state = { connections: [] as { resumed: boolean }[], requests: 0 };
    const server = https.createServer({ key: tls.key, cert: tls.cert }, (request, response) => {
      request.resume();
      request.on('end', () => {
        state.requests += 1;
        if (onRequest) onRequest(request.socket as TLSSocket);
        else response.end('{}');
      });
    });
    server.keepAliveTimeout = keepAliveMs;
    server.on('secureConnection', (socket) => state.connections.push({ resumed: socket.isSessionReused() }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/api/webhook/metrics`;
    return Object.assign(state, {
      url,
      close: () => {
        server.closeAllConnections();
        server.close();
      },
    });
  }

  /** The agent's posts in a process of their own: one answer per `post` step. */
  async function agentSteps(url: string, ...steps: string[]): Promise<({ status: number } | { error: string })[]> {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', STEPS, url, ...steps], {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: tls.certFile },
    });
    return stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { status: number } | { error: string });
  }

  it("sends the next report on the same connection after longer than Node's 5 s idle default", async () => {
    const server = await sink(75_000); // nginx's default keepalive_timeout
    try {
      assert.deepEqual(await agentSteps(server.url, 'post', 'wait:6000', 'post'), [{ status: 200 }, { status: 200 }]);
      assert.equal(server.requests, 2);
      assert.equal(server.connections.length, 1, 'one TLS handshake for both reports');
    } finally {
      server.close();
    }
  });

  it('sends a report again on a fresh connection, once, when the server closed the kept one just as it went out', async () => {
    // 2 s: node:http announces `Keep-Alive: timeout=2` and a client lets go 1 s earlier, but only on
    // its own timer; under 2 s it would not keep the connection at all
    const server = await sink(2000);
    try {
      // the server closes the idle connection while the agent's loop stands still, so the agent
      // writes its next report on it before it sees the close: the server never reads that request
      assert.deepEqual(await agentSteps(server.url, 'post', 'block:3000', 'post'), [{ status: 200 }, { status: 200 }]);
      assert.equal(server.requests, 2, 'the first report and the second once, on its new connection');
      assert.equal(server.connections.length, 2);
    } finally {
      server.close();
    }
  });

  it('does not send again when a fresh connection is reset', async () => {
    const server = await sink(75_000, (socket) => socket.destroy());
    try {
      const [answer] = await agentSteps(server.url, 'post');
      assert.deepEqual(answer, { error: 'ECONNRESET' });
      assert.equal(server.requests, 1, 'a reset on a new connection may come after the server read the report');
    } finally {
      server.close();
    }
  });

  it('resumes the TLS session on a new connection', async () => {
    const server = await sink(200);
    try {
      assert.deepEqual(await agentSteps(server.url, 'post', 'wait:800', 'post'), [{ status: 200 }, { status: 200 }]);
      assert.deepEqual(server.connections, [{ resumed: false }, { resumed: true }]);
    } finally {
      server.close();
    }
  });
});
