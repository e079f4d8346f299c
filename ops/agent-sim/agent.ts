/**
 * One simulated agent, speaking the protocol of docs/protocol.md ("Agent protocol")
 * as the real one does: a short-lived HS256 JWT (reused until shortly before its
 * exp), the enrollment key until it holds an agent key, then `ak`; a buffer of
 * unsent reports delivered oldest first (up to 500 a request), halved on 413,
 * paused for Retry-After on 429 and 503 (`retryAt`: the driver sends again when it is over; after a 429, until a buffer is taken, each new report also goes
 * alone, as the real agent does). Faults: offline (keeps buffering), clock skew, replayed buffer.
 * A backlog of reports made while the server was away can be given by their times (`backfill`).
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { promisify } from 'node:util';
import { gzip, gzipSync } from 'node:zlib';
import { SignJWT } from 'jose';
import { post } from '../../agent/src/send.js';
import { SimulatedHost, type HostFault, type Sample } from './catalogue.js';

// a backlog is compressed in libuv's thread pool: a simulator of thousands of agents keeps its event loop for the sending
const deflate = promisify(gzip);
/** Bodies up to this many characters are compressed at once: the thread pool's round trip costs more than they do. */
const SYNC_GZIP_CHARS = 64 * 1024;
const FRESH_TOKEN_HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

// one keep-alive connection per agent, as a real agent holds it (and cheap enough to simulate many)
const keepAlive = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

export interface Report {
  ts: string;
  metrics: Sample[];
  events?: { type: string; severity: string; message: string }[];
}

export type AgentFault = HostFault | 'offline' | 'clock-skew' | 'replay';

export interface AgentOptions {
  url: string;
  secret: string;
  enrollment?: string;
  /** Stable machine id (`sub`). */
  sub: string;
  hostname: string;
  seed: number;
  gzip?: boolean;
  /**
   * A new token for every request, as the argus-agent signs one per request (the server's verified
   * token cache then never helps; by default a token is reused for 4 minutes).
   */
  freshTokens?: boolean;
  /** Reports kept while undelivered; the oldest go first beyond it. */
  maxBuffer?: number;
  /** Known agent key (e.g. a bench that enrolled before). */
  agentKey?: string;
  /** Running containers the host reports (13 series each). */
  containers?: number;
}

export interface SendResult {
  status: number;
  sent: number;
  ms: number;
  accepted?: number;
  duplicates?: number;
  skipped?: number;
  /** The oldest report's time in the request (epoch ms): tells a replayed batch from a live one. */
  oldestMs: number;
}

export class SimulatedAgent {
  readonly host: SimulatedHost;
  agentKey: string | null;
  fault: AgentFault | null = null;
  /** Collected and not yet stored: the values only (a report's sample objects are made when sent). */
  private buffer: { ts: string; values: Float64Array }[] = [];
  /** Reports made while the server was away, older than the buffer: their times only (see backfill). */
  private backlog: number[] = [];
  private batchLimit = 500;
  private token: { value: string; renewAt: number } | null = null;
  private tokensSigned = 0;
  private blockedUntil = 0;
  /** The buffer is held back by a 429 (a 503 means nothing can be stored: no report alone then). */
  private slowedDown = false;
  /** The newest report already sent alone while slowed down. */
  private sentAlone: { ts: string } | null = null;
  /** The backlog's reports compressed (one gzip member), kept until they are stored (see replayBody). */
  private backlogGzip: { count: number; gz: Buffer } | null = null;
  /** The times of the last stored request's reports (the 'replay' fault sends them again). */
  private lastBatch: number[] = [];
  /**
   * The runs of network checks each report carries (its `checks`, a JSON array for the report's
   * time), as an agent that runs checks assigned to it sends them; none when null (a bench turns it
   * on and off between phases).
   */
  checkRuns: ((ts: string) => string) | null = null;

  constructor(private readonly options: AgentOptions) {
    this.host = new SimulatedHost(options.seed, undefined, options.containers ?? 0);
    this.agentKey = options.agentKey ?? null;
  }

  get buffered(): number {
    return this.backlog.length + this.buffer.length;
  }

  /**
   * When the buffer held back by a 429 or 503 may go again (epoch ms; past when nothing is held back):
   * the argus-agent sends it then, between its ticks if need be, so a driver wakes the agent then.
   */
  get retryAt(): number {
    return this.blockedUntil;
  }

  /** Reports still waiting in the backlog (see backfill). */
  get backlogged(): number {
    return this.backlog.length;
  }

  /**
   * Reports made while the server was away, by their times (epoch ms, oldest first, older than
   * anything collected since): their samples are drawn when they are sent, so 10,000 agents with
   * 30 minutes of buffer do not hold 36 million sample objects.
   */
  backfill(times: readonly number[]): void {
    this.backlog.push(...times);
  }

  private agentInfo() {
    return {
      version: '2.28.1',
      hostname: this.options.hostname,
      os: 'Ubuntu 24.04',
      kernel: '6.8.0-45',
      arch: 'x86_64',
      cores: this.host.cores,
      ...(this.agentKey ? {} : this.options.enrollment ? { enrollment: this.options.enrollment } : {}),
    };
  }

  /** A request body's JSON up to its reports, as JSON.stringify writes it: `{"agent":{…},"reports":[`. */
  private opening(): string {
    return `${JSON.stringify({ agent: this.agentInfo() }).slice(0, -1)},"reports":[`;
  }

  private encode(json: string): Promise<Buffer> | Buffer {
    if (!this.options.gzip) return Buffer.from(json);
    // a live report's few KB in one call (~30 µs of CPU; the thread pool's job costs ~240 µs for them)
    return json.length <= SYNC_GZIP_CHARS ? gzipSync(json) : deflate(json);
  }

  /** A buffered report as JSON.stringify writes it ({ts, metrics[, checks]}), without its sample objects. */
  private heldJson({ ts, values }: { ts: string; values: Float64Array }): string {
    const checks = this.checkRuns ? `,"checks":${this.checkRuns(ts)}` : '';
    return `{"ts":${JSON.stringify(ts)},"metrics":${this.host.metricsJson(values)}${checks}}`;
  }

  private drawnJson(ms: number): string {
    return this.heldJson({ ts: new Date(ms).toISOString(), values: this.host.sampleValues(ms, this.buffered) });
  }

  setFault(fault: AgentFault | null): void {
    this.fault = fault;
    this.host.fault = fault === 'disk-fill' || fault === 'cpu-spike' ? fault : null;
  }

  /**
   * Takes a report of the host at `now` into the buffer. Its samples write through: a test that sets a
   * value on the returned report (a read-only disk for an alert) changes what will be sent.
   */
  collect(now = Date.now()): Report {
    const skew = this.fault === 'clock-skew' ? 7 * 60_000 : 0;
    const held = { ts: new Date(now + skew).toISOString(), values: this.host.sampleValues(now, this.buffer.length) };
    this.buffer.push(held);
    const max = this.options.maxBuffer ?? 10_000;
    if (this.buffer.length > max) this.buffer.splice(0, this.buffer.length - max);
    // the sample objects are made only when read (a bench collecting thousands of reports never does)
    let metrics: Sample[] | null = null;
    const host = this.host;
    return {
      ts: held.ts,
      get metrics(): Sample[] {
        metrics ??= host.named(held.values).map((sample, i) =>
          Object.defineProperty(sample, 'value', {
            enumerable: true,
            get: () => held.values[i],
            set: (value: number) => (held.values[i] = value),
          }),
        );
        return metrics;
      },
    };
  }

  private async bearer(now: number): Promise<string> {
    if (this.options.freshTokens) return this.freshToken(now);
    if (this.token && now < this.token.renewAt && this.fault !== 'clock-skew') return this.token.value;
    const iat = Math.floor(now / 1000) + (this.fault === 'clock-skew' ? 7 * 60 : 0);
    const value = await new SignJWT({ ...(this.agentKey ? { ak: this.agentKey } : {}) })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(this.options.sub)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 300)
      .sign(new TextEncoder().encode(this.options.secret));
    this.token = { value, renewAt: now + 240_000 };
    return value;
  }

  /**
   * Signed the way the argus-agent signs (agent/src/jwt.ts: node:crypto, the same header and claims),
   * plus a `jti` that makes two requests of one second two tokens, as two requests 30 s apart are.
   */
  private freshToken(now: number): string {
    const iat = Math.floor(now / 1000) + (this.fault === 'clock-skew' ? 7 * 60 : 0);
    const claims = {
      sub: this.options.sub,
      iat,
      exp: iat + 300,
      jti: ++this.tokensSigned,
      ...(this.agentKey ? { ak: this.agentKey } : {}),
    };
    const signingInput = `${FRESH_TOKEN_HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    return `${signingInput}.${createHmac('sha256', this.options.secret).update(signingInput).digest('base64url')}`;
  }

  /**
   * The next request's JSON and what it holds, written as text (no sample objects), so thousands of
   * simulated agents waiting for answers hold only their compressed bodies.
   */
  private nextBody() {
    const backlog = this.backlog.slice(0, this.batchLimit);
    const held = this.buffer.slice(0, this.batchLimit - backlog.length);
    const times = [...backlog, ...held.map((h) => Date.parse(h.ts))];
    const batch = [...backlog.map((ms) => this.drawnJson(ms)), ...held.map((h) => this.heldJson(h))];
    // a replayed request resends the reports of the last one: the same identity (system, ts)
    const again = this.fault === 'replay' ? this.lastBatch : [];
    const reports = [...again.map((ms) => this.drawnJson(ms)), ...batch].slice(-500);
    const json = `${this.opening()}${reports.join(',')}]}`;
    return {
      json,
      fromBacklog: backlog.length,
      fromBuffer: held.length,
      times,
      sent: reports.length,
      oldestMs: Math.min(...[...again, ...times].slice(-500)),
    };
  }

  /** Compresses the backlog now, as an agent writes its buffer while the server is away. */
  async prepareBacklog(): Promise<Buffer> {
    if (this.backlogGzip?.count !== this.backlog.length) {
      const fragment = this.backlog.map((ms) => this.drawnJson(ms)).join(',');
      this.backlogGzip = { count: this.backlog.length, gz: await deflate(fragment) };
    }
    return this.backlogGzip.gz;
  }

  /**
   * The whole backlog and buffer in one request, its gzip made of three members (a body may hold
   * several; gunzip reads them as one stream): the opening, the backlog's reports compressed once
   * and kept until stored, the buffer's reports and the closing. A simulator of 10,000 agents cannot
   * draw, serialise and compress 60 reports anew for every refused replay (~8 ms each) without
   * becoming the bottleneck it measures.
   */
  private async replayBody() {
    const gz = await this.prepareBacklog();
    const opening = this.opening();
    const closing = `${this.buffer.map((h) => `,${this.heldJson(h)}`).join('')}]}`;
    const times = [...this.backlog, ...this.buffer.map((report) => Date.parse(report.ts))];
    // counted with the text, not after compressing it: a report collected meanwhile is not in this body
    const fromBacklog = this.backlog.length;
    const fromBuffer = this.buffer.length;
    return {
      payload: Buffer.concat([await deflate(opening), gz, await deflate(closing)]),
      fromBacklog,
      fromBuffer,
      times,
      sent: times.length,
      oldestMs: Math.min(...times),
    };
  }

  /**
   * After a 429, until a buffer is taken: the newest report alone, once (the server takes a live report,
   * so its system stays ONLINE). It stays in the buffer and comes again with the rest, a duplicate.
   */
  private async sendAlone(newest: { ts: string; values: Float64Array }): Promise<SendResult> {
    this.sentAlone = newest;
    const payload = await this.encode(`${this.opening()}${this.heldJson(newest)}]}`);
    return (await this.exchange(payload, Date.now(), 1, Date.parse(newest.ts))).result;
  }

  /** One POST of a body: what it brought back as a SendResult, and the answer itself. */
  private async exchange(payload: Buffer, now: number, sent: number, oldestMs: number) {
    const headers: Record<string, string> = {
      authorization: `Bearer ${await this.bearer(now)}`,
      'content-type': 'application/json',
    };
    if (this.options.gzip) headers['content-encoding'] = 'gzip';
    const started = performance.now();
    let response: { status: number; retryAfter: string | null; text: string };
    try {
      response = await post(this.options.url, headers, payload, keepAlive);
    } catch {
      return { result: { status: 0, sent, ms: performance.now() - started, oldestMs }, response: null, answer: {} };
    }
    const ms = performance.now() - started;
    let answer: Record<string, unknown> = {};
    try {
      answer = JSON.parse(response.text) as Record<string, unknown>;
    } catch {
      // not JSON
    }
    const result: SendResult = {
      status: response.status,
      sent,
      ms,
      oldestMs,
      ...(typeof answer['accepted'] === 'number' ? { accepted: answer['accepted'] } : {}),
      ...(typeof answer['duplicates'] === 'number' ? { duplicates: answer['duplicates'] } : {}),
      ...(typeof answer['skipped'] === 'number' ? { skipped: answer['skipped'] } : {}),
    };
    return { result, response, answer };
  }

  /**
   * Requests of one report each at `times` (epoch ms, growing), written now as send() writes a live
   * report's request: gzip (unless the agent sends plain JSON) and a new token each (unless it reuses
   * one). For a benchmark that writes its requests before its timed phase, so the machine it measures
   * does not also spend its cores making them: what the server receives is the same. The buffer is
   * not touched, and only an enrolled agent (one with its agent key) can write them ahead.
   */
  async prepareRequests(times: readonly number[]): Promise<{ headers: Record<string, string>; payload: Buffer }[]> {
    if (!this.agentKey) throw new Error('requests are written ahead only by an enrolled agent');
    const opening = this.opening();
    const now = Date.now();
    const requests: { headers: Record<string, string>; payload: Buffer }[] = [];
    for (const ms of times) {
      const json = `${opening}${this.heldJson({ ts: new Date(ms).toISOString(), values: this.host.sampleValues(ms) })}]}`;
      const headers: Record<string, string> = {
        authorization: `Bearer ${await this.bearer(now)}`,
        'content-type': 'application/json',
      };
      if (this.options.gzip) headers['content-encoding'] = 'gzip';
      requests.push({ headers, payload: this.options.gzip ? gzipSync(json) : Buffer.from(json) });
    }
    return requests;
  }

  /**
   * Sends the oldest buffered reports; what the server stored leaves the buffer. `waitOver`: sent
   * because the wait after a 429 is over, between ticks: the buffer goes at once (the argus-agent drains
   * it then; its new report goes alone at a tick only).
   */
  async send(now = Date.now(), waitOver = false): Promise<SendResult | null> {
    if (this.fault === 'offline' || this.buffered === 0) return null;
    // after a refused buffer, each new report goes alone first (a live report is taken), then the buffer
    const newest = this.buffer.at(-1);
    if (!waitOver && this.slowedDown && this.agentKey && newest && newest !== this.sentAlone)
      return this.sendAlone(newest);
    if (now < this.blockedUntil) return null;
    const wholeBacklog =
      this.options.gzip && this.fault !== 'replay' && this.backlog.length > 0 && this.buffered <= this.batchLimit;
    let request: Omit<ReturnType<SimulatedAgent['nextBody']>, 'json'> & { payload: Buffer };
    if (wholeBacklog) request = await this.replayBody();
    else {
      const { json, ...rest } = this.nextBody();
      request = { ...rest, payload: await this.encode(json) };
    }
    const { payload, fromBacklog, fromBuffer, times, sent, oldestMs } = request;
    const { result, response, answer } = await this.exchange(payload, now, sent, oldestMs);
    if (!response) return result;
    if (response.status === 200) {
      this.slowedDown = false;
      this.backlog.splice(0, fromBacklog);
      this.backlogGzip = null;
      this.buffer.splice(0, fromBuffer);
      this.lastBatch = times;
      if (typeof answer['agentKey'] === 'string') {
        this.agentKey = answer['agentKey'];
        this.token = null;
      }
      this.batchLimit = Math.min(500, this.batchLimit * 2);
    } else if (response.status === 413) {
      this.batchLimit = Math.max(1, Math.floor(this.batchLimit / 2));
    } else if (response.status === 429 || response.status === 503) {
      // slowed down, or the server cannot store right now (its database is away): keep the reports, wait
      this.blockedUntil = now + Number(response.retryAfter ?? 10) * 1000;
      this.slowedDown = response.status === 429;
    } else if (response.status === 401) {
      this.token = null;
    }
    return result;
  }
}
