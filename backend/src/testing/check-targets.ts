/**
 * Real servers on loopback for the network checks' tests: HTTP and HTTPS (a certificate from a
 * throwaway test CA that expires in 5 days, and a self-signed one), a TCP listener, and Debian's
 * dnsmasq answering a test zone. Certificates are made by the openssl command line.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface TestCertificates {
  /** Signed by the test CA, for localhost and 127.0.0.1, valid for 5 days. */
  leaf: { key: Buffer; cert: Buffer };
  selfSigned: { key: Buffer; cert: Buffer };
  remove(): void;
}

export function makeCertificates(): TestCertificates {
  const dir = mkdtempSync(path.join(tmpdir(), 'argus-check-certs-'));
  const at = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    at('ca.key'),
    '-out',
    at('ca.crt'),
    '-days',
    '30',
    '-subj',
    '/CN=Argus Test CA',
  );
  openssl('req', ...ec, '-keyout', at('leaf.key'), '-out', at('leaf.csr'), '-subj', '/CN=localhost');
  writeFileSync(at('ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  openssl(
    'x509',
    '-req',
    '-in',
    at('leaf.csr'),
    '-CA',
    at('ca.crt'),
    '-CAkey',
    at('ca.key'),
    '-CAcreateserial',
    '-out',
    at('leaf.crt'),
    '-days',
    '5',
    '-extfile',
    at('ext'),
  );
  openssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    at('self.key'),
    '-out',
    at('self.crt'),
    '-days',
    '200',
    '-subj',
    '/CN=localhost',
    '-addext',
    'subjectAltName=DNS:localhost,IP:127.0.0.1',
  );
  return {
    leaf: { key: readFileSync(at('leaf.key')), cert: readFileSync(at('leaf.crt')) },
    selfSigned: { key: readFileSync(at('self.key')), cert: readFileSync(at('self.crt')) },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface Listening {
  port: number;
  close(): Promise<void>;
}

async function listen(server: net.Server): Promise<Listening> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        if (server instanceof http.Server) server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The test site: `/` says "welcome to the shop", `/slow` answers after 1.5 s, `/close` hangs up,
 * `/to/<url>` redirects to the URL, `/token` tells whether the X-Token header came.
 */
export function siteHandler(): http.RequestListener {
  return (req, res) => {
    const url = req.url ?? '/';
    if (url === '/slow') {
      setTimeout(() => res.end('finally'), 1500).unref();
      return;
    }
    if (url === '/close') {
      req.socket.destroy();
      return;
    }
    if (url.startsWith('/to/')) {
      res.writeHead(302, { location: decodeURIComponent(url.slice(4)) }).end();
      return;
    }
    if (url === '/token') {
      res.end(`token=${req.headers['x-token'] ?? 'none'}`);
      return;
    }
    if (url === '/missing') {
      res.writeHead(404).end('not here');
      return;
    }
    res.end('<html><body>welcome to the shop</body></html>');
  };
}

export const startHttp = () => listen(http.createServer(siteHandler()));
export const startHttps = (pair: { key: Buffer; cert: Buffer }) => listen(https.createServer(pair, siteHandler()));

export function startTcp(): Promise<Listening> {
  return listen(net.createServer((socket) => socket.end()));
}

/** A port nothing listens on (bound, then closed). */
export async function closedPort(): Promise<number> {
  const listener = await startTcp();
  await listener.close();
  return listener.port;
}

/** dnsmasq on 127.0.0.1:<port> answering `shop.test` (A 192.0.2.10, MX mail.shop.test) and nothing else. */
export async function startDnsmasq(): Promise<{ port: number; stop(): void }> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child: ChildProcess = spawn(
    'dnsmasq',
    [
      '--keep-in-foreground',
      '--conf-file=/dev/null',
      '--no-resolv',
      '--no-hosts',
      '--bind-interfaces',
      '--listen-address=127.0.0.1',
      `--port=${port}`,
      // authoritative for .test: a name it does not know does not exist
      '--local=/test/',
      '--host-record=shop.test,192.0.2.10',
      '--mx-host=shop.test,mail.shop.test,10',
      '--pid-file=',
    ],
    { stdio: 'ignore' },
  );
  // ready once it answers on UDP
  const { Resolver } = await import('node:dns/promises');
  const resolver = new Resolver({ timeout: 200, tries: 1 });
  resolver.setServers([`127.0.0.1:${port}`]);
  for (let i = 0; i < 50; i++) {
    if (
      await resolver.resolve4('shop.test').then(
        () => true,
        () => false,
      )
    )
      break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { port, stop: () => child.kill() };
}
