/**
 * ops/nginx.conf.example as a user installs it, for tests: Debian's nginx as a child process with its
 * own prefix, a self-signed certificate for 127.0.0.1 made by openssl, and the example rendered with
 * only its ports, host name and certificate paths replaced.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, waitFor } from '../../backend/src/testing/net.js';
import { REPO_ROOT, runTool } from './support.js';

const NGINX = '/usr/sbin/nginx';

export interface TlsProxy {
  /** `https://127.0.0.1:<port>`: what AUTH_URL is set to. */
  origin: string;
  ports: { https: number; http: number };
  /** The certificate (PEM) and its file, to trust it. */
  cert: string;
  certFile: string;
  /** What nginx logged of the requests so far (the example's access log). */
  accessLog(): Promise<string>;
  stop(): Promise<void>;
}

/** The example with the test's ports, host and certificate; fails if the example no longer has a line. */
export function renderExample(
  example: string,
  ports: { https: number; http: number; app: number },
  dir: string,
): string {
  const replacements: [string, string][] = [
    ['    listen 80;\n', `    listen 127.0.0.1:${ports.http};\n`],
    ['    listen [::]:80;\n', ''],
    ['    listen 443 ssl http2;\n', `    listen 127.0.0.1:${ports.https} ssl http2;\n`],
    ['    listen [::]:443 ssl http2;\n', ''],
    ['server 127.0.0.1:3000;', `server 127.0.0.1:${ports.app};`],
    ['/etc/letsencrypt/live/argus.example.com/fullchain.pem', path.join(dir, 'cert.pem')],
    ['/etc/letsencrypt/live/argus.example.com/privkey.pem', path.join(dir, 'key.pem')],
    ['server_name argus.example.com;', 'server_name 127.0.0.1;'],
    ['/var/log/nginx/access.log', path.join(dir, 'access.log')],
  ];
  let text = example;
  for (const [from, to] of replacements) {
    assert.ok(text.includes(from), `the example contains ${JSON.stringify(from)}`);
    text = text.replaceAll(from, to);
  }
  return text;
}

function mainConfig(dir: string): string {
  return `worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log info;
events { worker_connections 256; }
http {
  access_log ${dir}/access.log;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  include ${dir}/argus.conf;
}
`;
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** nginx with TLS on free loopback ports in front of the app on `appPort`. */
export async function startTlsProxy(options: { appPort: number }): Promise<TlsProxy> {
  const dir = await mkdtemp(path.join(tmpdir(), 'argus-nginx-'));
  await chmod(dir, 0o755); // nginx's workers run as an unprivileged user when the test runs as root
  const certFile = path.join(dir, 'cert.pem');
  const made = await runTool('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=127.0.0.1',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
    '-keyout',
    path.join(dir, 'key.pem'),
    '-out',
    certFile,
  ]);
  assert.equal(made.code, 0, made.stderr);
  const ports = { https: await freePort(), http: await freePort() };
  const example = await readFile(path.join(REPO_ROOT, 'ops/nginx.conf.example'), 'utf8');
  await writeFile(path.join(dir, 'argus.conf'), renderExample(example, { ...ports, app: options.appPort }, dir));
  await writeFile(path.join(dir, 'nginx.conf'), mainConfig(dir));
  const args = ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', path.join(dir, 'error.log')];
  const check = await runTool(NGINX, [...args, '-t']);
  assert.equal(check.code, 0, `nginx -t: ${check.stderr}`);
  const nginx = spawn(NGINX, [...args, '-g', 'daemon off;'], { stdio: 'ignore' });
  const exited = new Promise((resolve) => nginx.once('exit', resolve));
  await waitFor(async () => (await portOpen(ports.https)) && (await portOpen(ports.http)), 10_000);
  return {
    origin: `https://127.0.0.1:${ports.https}`,
    ports,
    cert: await readFile(certFile, 'utf8'),
    certFile,
    accessLog: () => readFile(path.join(dir, 'access.log'), 'utf8'),
    async stop() {
      if (nginx.exitCode === null) {
        nginx.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
