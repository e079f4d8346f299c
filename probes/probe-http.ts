/**
 * The HTTP(S) probe. Every hop is a new connection made by the run's network (the server's: under
 * its outbound address policy, resolved, checked, connected, the connected address checked again),
 * so a redirect to a refused address is refused like the first URL. No cookie or console credential
 * is ever sent: only the check's own headers, and those only to the origin of the check's URL. Of
 * the answer only the status, the certificate and whether the keyword appears in its first
 * MAX_BODY_BYTES are kept; the body itself is never stored nor answered.
 */
import http from 'node:http';
import type https from 'node:https';
import { isIP, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { HttpSettings } from '../contracts/checks.js';
import { CheckFailure, failed, failureReason, type ProbeContext, type ProbeOutcome } from './outcome.js';

/** Read of an answer's body for the keyword: enough for a page's text, never a download. */
export const MAX_BODY_BYTES = 256 * 1024;
export const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const DAY_MS = 86_400_000;

interface Certificate {
  daysLeft: number | null;
  valid: boolean;
}

/** A certificate that does not verify, while verification is on: measured all the same. */
class CertificateRefused extends CheckFailure {
  constructor(
    message: string,
    readonly cert: Certificate,
  ) {
    super(message);
  }
}

interface Hop {
  status: number;
  location: string | null;
  body: string | null;
  cert: Certificate | null;
}

/** "200-299,301" → does `status` count as up? */
export function statusExpected(list: string, status: number): boolean {
  return list.split(',').some((part) => {
    const [low, high] = part.trim().split('-').map(Number) as [number, number | undefined];
    return status >= low && status <= (high ?? low);
  });
}

/** A TLS session on `socket`, verified by us (not by Node) so a failing certificate is still measured. */
async function secure(socket: Socket, host: string, verify: boolean, now: Date): Promise<[TLSSocket, Certificate]> {
  // node:tls only once an https check runs: an agent without one does not carry it
  const session = process.getBuiltinModule('node:tls').connect({
    socket,
    ...(isIP(host) ? {} : { servername: host }),
    host,
    rejectUnauthorized: false,
    ALPNProtocols: ['http/1.1'],
  });
  await new Promise<void>((resolve, reject) => {
    session.once('secureConnect', resolve);
    session.once('error', reject);
  });
  const peer = session.getPeerCertificate();
  const expires = peer.valid_to ? Date.parse(peer.valid_to) : NaN;
  const cert: Certificate = {
    daysLeft: Number.isFinite(expires) ? Math.floor(((expires - now.getTime()) / DAY_MS) * 10) / 10 : null,
    // Node's verdict: the chain to a trusted root and the name (checkServerIdentity)
    valid: session.authorized,
  };
  if (verify && !session.authorized) {
    session.destroy();
    throw new CertificateRefused(`certificate does not verify (${String(session.authorizationError)})`, cert);
  }
  return [session, cert];
}

/** One request and its answer's head (and bounded body when a keyword is looked for). */
function exchange(
  url: URL,
  method: string,
  headers: Record<string, string>,
  readBody: boolean,
  settings: HttpSettings,
  ctx: ProbeContext,
): Promise<Hop> {
  const secureHop = url.protocol === 'https:';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port) || (secureHop ? 443 : 80);
  let cert: Certificate | null = null;
  return new Promise<Hop>((resolve, reject) => {
    const connect = async (): Promise<Socket> => {
      const socket = await ctx.network.connect(host, port, ctx.signal);
      if (!secureHop) return socket;
      const [session, seen] = await secure(socket, host, settings.verifyTls, ctx.now());
      cert = seen;
      return session;
    };
    const transport: typeof https | typeof http = secureHop ? process.getBuiltinModule('node:https') : http;
    const req = transport.request(url, {
      method,
      headers: { host: url.host, 'user-agent': 'Argus-Check/1', accept: '*/*', ...headers },
      createConnection: (_options: unknown, done: (error: Error | null, socket?: Socket) => void) => {
        connect().then(
          (socket) => done(null, socket),
          (error: Error) => done(error),
        );
        return undefined;
      },
    } as http.RequestOptions);
    const abort = () => req.destroy(new CheckFailure('aborted'));
    ctx.signal.addEventListener('abort', abort, { once: true });
    req.on('error', (error) => {
      ctx.signal.removeEventListener('abort', abort);
      reject(error);
    });
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const location = typeof res.headers.location === 'string' ? res.headers.location : null;
      const done = (body: string | null) => {
        ctx.signal.removeEventListener('abort', abort);
        res.destroy();
        resolve({ status, location, body, cert });
      };
      if (!readBody || method === 'HEAD' || (REDIRECTS.has(status) && settings.followRedirects)) return done(null);
      const chunks: Buffer[] = [];
      let kept = 0;
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        kept += chunk.length;
        // enough read: the rest of the answer is never fetched
        if (kept >= MAX_BODY_BYTES) done(Buffer.concat(chunks).subarray(0, MAX_BODY_BYTES).toString('utf8'));
      });
      res.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
      res.on('error', (error) => reject(error));
      res.on('aborted', () => reject(new CheckFailure('answer cut off')));
    });
    req.end();
  });
}

function keywordFound(settings: HttpSettings, body: string): boolean {
  const keyword = settings.keyword ?? '';
  return settings.keywordIsRegex ? new RegExp(keyword).test(body) : body.includes(keyword);
}

/** The next hop of a redirect, or a failure when it may not be followed. */
function nextUrl(from: URL, location: string | null, hop: number): URL {
  if (!location) throw new CheckFailure('redirect without a location');
  if (hop >= MAX_REDIRECTS) throw new CheckFailure(`more than ${MAX_REDIRECTS} redirects`);
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new CheckFailure('redirect to an invalid URL');
  }
  if (next.protocol !== 'http:' && next.protocol !== 'https:') throw new CheckFailure('redirect to a non-HTTP URL');
  if (next.username || next.password) throw new CheckFailure('redirect to a URL with credentials');
  return next;
}

/**
 * Runs an HTTP(S) check once. `headers` are the check's own, secret values opened; they go only
 * to the check's own origin (a redirect elsewhere does not carry them).
 */
export async function probeHttp(
  settings: HttpSettings,
  headers: Record<string, string>,
  ctx: ProbeContext,
): Promise<ProbeOutcome> {
  const started = performance.now();
  const origin = new URL(settings.url).origin;
  let url = new URL(settings.url);
  let method: string = settings.method;
  const wantBody = settings.keyword !== undefined && settings.keyword !== '';
  let last: Hop | null = null;
  let cert: Certificate | null = null;
  try {
    for (let hop = 0; ; hop++) {
      last = await exchange(url, method, url.origin === origin ? headers : {}, wantBody, settings, ctx);
      cert = last.cert ?? cert;
      if (!REDIRECTS.has(last.status) || !settings.followRedirects) break;
      url = nextUrl(url, last.location, hop);
      if (last.status === 303 || ((last.status === 301 || last.status === 302) && method === 'POST')) method = 'GET';
    }
  } catch (error) {
    if (error instanceof CertificateRefused) cert = error.cert;
    return failed(failureReason(error, ctx.timeoutMs, ctx.signal), {
      status: last?.status ?? null,
      certDaysLeft: cert?.daysLeft ?? null,
      certValid: cert?.valid ?? null,
    });
  }
  const responseMs = Math.round(performance.now() - started);
  const measured = {
    responseMs,
    status: last.status,
    certDaysLeft: cert?.daysLeft ?? null,
    certValid: cert?.valid ?? null,
  };
  if (!statusExpected(settings.expectedStatuses, last.status)) return failed(`status ${last.status}`, measured);
  if (!wantBody || last.body === null) return { ...failed(''), ...measured, up: true, reason: null };
  const found = keywordFound(settings, last.body);
  const up = settings.keywordAbsent ? !found : found;
  const outcome = { ...failed(''), ...measured, keywordMatched: found };
  return up
    ? { ...outcome, up: true, reason: null }
    : { ...outcome, reason: settings.keywordAbsent ? 'keyword present' : 'keyword missing' };
}
