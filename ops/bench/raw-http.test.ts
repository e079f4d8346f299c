import assert from 'node:assert/strict';
import http from 'node:http';
import type net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { postBytes, RawConnection } from './raw-http.js';

describe('the benchmarks raw keep-alive client', () => {
  let server: http.Server;
  let url: string;
  let connections = 0;
  const seen: { headers: http.IncomingHttpHeaders; body: string; socket: net.Socket }[] = [];
  before(async () => {
    server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        seen.push({ headers: request.headers, body: Buffer.concat(chunks).toString(), socket: request.socket });
        if (request.url === '/empty') response.writeHead(204).end();
        else if (request.url === '/chunked') {
          response.writeHead(200, { 'content-type': 'text/plain' });
          response.write('one, ');
          response.end('two');
        } else if (request.url === '/then-close') {
          // an idle connection closed by the server after its answer, as a keep-alive timeout does
          response.on('finish', () => setTimeout(() => request.socket.destroy(), 50));
          response.writeHead(200).end('{}');
        } else if (request.url === '/slow-down') response.writeHead(429, { 'retry-after': '7' }).end('{}');
        else response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ accepted: 1 }));
      });
    });
    server.on('connection', () => (connections += 1));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('sends what node:http would (headers, length, body) and reads sized, chunked and empty answers on one connection', async () => {
    const connection = new RawConnection(url);
    try {
      const headers = { authorization: 'Bearer a.b.c', 'content-encoding': 'gzip' };
      const first = await connection.send(postBytes(`${url}/report?x=1`, headers, Buffer.from('hello')));
      assert.deepEqual([first.status, first.body.toString()], [200, '{"accepted":1}']);
      const chunked = await connection.send(postBytes(`${url}/chunked`, headers, Buffer.from('')));
      assert.deepEqual([chunked.status, chunked.body.toString()], [200, 'one, two']);
      const empty = await connection.send(postBytes(`${url}/empty`, headers, Buffer.from('x')));
      assert.deepEqual([empty.status, empty.body.length], [204, 0]);
      const slowed = await connection.send(postBytes(`${url}/slow-down`, headers, Buffer.from('x')));
      assert.deepEqual([slowed.status, slowed.retryAfter], [429, '7']);
      const [a, b, c, d] = seen.slice(-4);
      assert.deepEqual(
        [a?.body, a?.headers['authorization'], a?.headers['content-encoding']],
        ['hello', 'Bearer a.b.c', 'gzip'],
      );
      assert.deepEqual([a?.headers['content-length'], a?.headers['connection']], ['5', 'keep-alive']);
      assert.ok(a?.socket === b?.socket && b?.socket === c?.socket && c?.socket === d?.socket, 'one connection');
    } finally {
      connection.close();
    }
  });

  it('opens its connection ahead, and its first request goes on it', async () => {
    const connection = new RawConnection(url);
    try {
      const before = connections;
      await connection.open();
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(connections, before + 1, 'connected before any request');
      assert.equal((await connection.send(postBytes(`${url}/first`, {}, Buffer.from('1')))).status, 200);
      assert.equal(connections, before + 1, 'no second connection');
      assert.equal(seen.at(-1)?.body, '1');
    } finally {
      connection.close();
    }
  });

  it('dials anew when the server closed the idle connection', async () => {
    const connection = new RawConnection(url);
    try {
      assert.equal((await connection.send(postBytes(`${url}/then-close`, {}, Buffer.from('1')))).status, 200);
      const before = connections;
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal((await connection.send(postBytes(`${url}/b`, {}, Buffer.from('2')))).status, 200);
      assert.equal(connections, before + 1, 'a new connection');
      assert.equal(seen.at(-1)?.body, '2');
    } finally {
      connection.close();
    }
  });
});
