/**
 * The console as users reach it: the real server with NODE_ENV=production behind the nginx example
 * with TLS (ops/deploy/tls-proxy.ts), AUTH_URL its https:// origin, serving the built console.
 * Browsers go through nginx (`url`); agents and scripts may also use the app's own port (`appUrl`).
 */
import path from 'node:path';
import { startTestServer, testConfig, type TestServer } from '../../backend/src/testing/app.js';
import { freePort } from '../../backend/src/testing/net.js';
import { REPO_ROOT } from '../../backend/src/testing/script.js';
import { startTlsProxy, type TlsProxy } from '../deploy/tls-proxy.js';

export interface ProductionConsole {
  /** https://127.0.0.1:<nginx port>: AUTH_URL, where the browser goes. */
  url: string;
  /** http://127.0.0.1:<app port>: the app itself, behind nginx. */
  appUrl: string;
  server: TestServer;
  proxy: TlsProxy;
  stop(): Promise<void>;
}

/**
 * `env`: more variables, or a function of nginx's origin giving them (an identity provider must know
 * the callback URL, which is on that origin, before the app starts with the provider's issuer).
 */
export async function startProductionConsole(
  databaseUrl: string,
  more: Record<string, string> | ((origin: string) => Promise<Record<string, string>>) = {},
): Promise<ProductionConsole> {
  // nginx needs the app's port and the app needs nginx's origin (AUTH_URL): the app's port is chosen first
  const appPort = await freePort();
  const proxy = await startTlsProxy({ appPort });
  const env = typeof more === 'function' ? await more(proxy.origin) : more;
  const server = await startTestServer(
    testConfig(databaseUrl, {
      NODE_ENV: 'production',
      BCRYPT_COST: '10', // production refuses the cheap cost of the other tests
      PORT: String(appPort),
      AUTH_URL: proxy.origin,
      STATIC_DIR: path.join(REPO_ROOT, 'dist/frontend/browser'),
      ...env,
    }),
  );
  return {
    url: proxy.origin,
    appUrl: server.url,
    server,
    proxy,
    async stop() {
      await proxy.stop();
      await server.stop();
    },
  };
}
