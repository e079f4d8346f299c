/**
 * A signed-in API client over HTTPS through the TLS proxy, trusting only the test certificate: what a
 * browser sends (Origin, the session cookie, `x-csrf-token` on writes), from a test.
 */
import https from 'node:https';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
}

export interface HttpsClient {
  request(method: string, target: string, body?: unknown): Promise<Reply>;
  /** Signs in (throws unless 200) and keeps the session cookie and CSRF token for later requests. */
  signIn(identifier: string, password: string): Promise<void>;
}

export function httpsClient(origin: string, ca: string): HttpsClient {
  const url = new URL(origin);
  let cookie = '';
  let csrfToken = '';

  function request(method: string, target: string, body?: unknown): Promise<Reply> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = https.request(
        {
          host: url.hostname,
          port: url.port,
          path: target,
          method,
          ca,
          agent: false,
          timeout: 30_000,
          headers: {
            origin,
            ...(payload ? { 'content-type': 'application/json' } : {}),
            ...(cookie ? { cookie } : {}),
            ...(csrfToken && method !== 'GET' ? { 'x-csrf-token': csrfToken } : {}),
          },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => {
            let parsed: unknown = text;
            try {
              parsed = JSON.parse(text);
            } catch {
              // not JSON
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${target}: no answer in 30 s`)));
      req.on('error', reject);
      req.end(payload);
    });
  }

  return {
    request,
    async signIn(identifier, password) {
      cookie = '';
      csrfToken = '';
      const reply = await request('POST', '/api/auth/login', { identifier, password });
      if (reply.status !== 200) throw new Error(`sign-in answered ${reply.status}: ${JSON.stringify(reply.body)}`);
      const setCookie = reply.headers['set-cookie'];
      cookie = (Array.isArray(setCookie) ? setCookie : [setCookie ?? '']).map((line) => line.split(';')[0]).join('; ');
      csrfToken = reply.body.csrfToken;
    },
  };
}
