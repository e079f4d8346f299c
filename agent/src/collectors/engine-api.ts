/**
 * GET requests to a container engine's HTTP API over its unix socket: Docker's, or Podman's
 * Docker-compatible one. node:http only (no client library); each request has its own time limit
 * and an abort signal, so a collection never waits on a stalled engine longer than its budget.
 */
import { Agent, request } from 'node:http';

/**
 * Connections kept open between requests (per socket path): a collection asks the engine for the list,
 * the events and one stats answer per running container, and a new connection for each cost the
 * agent more CPU than reading its answer. Idle ones are dropped after a minute, and never keep the
 * agent's process alive (Node unrefs a free socket).
 */
const keptOpen = new Agent({ keepAlive: true, maxSockets: 8, maxFreeSockets: 8, timeout: 60_000 });

export class EngineError extends Error {
  constructor(
    message: string,
    /** ENOENT, EACCES, ECONNREFUSED, TIMEOUT, HTTP <status>, BAD_JSON… */
    readonly code: string,
  ) {
    super(message);
  }
}

export interface EngineRequest {
  socketPath: string;
  path: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** The answer's body as text; 2xx only. */
export function engineGet({ socketPath, path, timeoutMs, signal }: EngineRequest): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      { socketPath, path, method: 'GET', headers: { host: 'engine' }, signal, agent: keptOpen },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve(body);
          else reject(new EngineError(`HTTP ${status} for ${path.split('?')[0]}`, `HTTP ${status}`));
        });
        res.on('error', (error: NodeJS.ErrnoException) =>
          reject(new EngineError(error.message, error.code ?? 'ERROR')),
        );
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new EngineError(`no answer within ${timeoutMs} ms`, 'TIMEOUT')));
    req.on('error', (error: NodeJS.ErrnoException) =>
      reject(error instanceof EngineError ? error : new EngineError(error.message, error.code ?? 'ERROR')),
    );
    req.end();
  });
}

export async function engineJson<T>(options: EngineRequest): Promise<T> {
  const text = await engineGet(options);
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new EngineError(`not JSON from ${options.path.split('?')[0]}`, 'BAD_JSON');
  }
}

/** Requests to the engine in flight at once, for one collector's inspections or stats: a busy engine is not flooded. */
export const ENGINE_REQUESTS_AT_ONCE = 4;

/** Runs `work` over `items`, at most `limit` at a time; stops starting new ones once `signal` aborts. */
export async function boundedEach<T>(
  items: readonly T[],
  limit: number,
  signal: AbortSignal,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !signal.aborted) {
      const item = items[next++] as T;
      await work(item).catch(() => undefined);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
