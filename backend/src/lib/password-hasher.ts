/**
 * bcrypt (bcryptjs) in worker threads, so hashing never blocks the event loop.
 * Cost 11 in production; BCRYPT_COST may lower it for tests only, never below 4. A password over
 * 72 bytes never verifies (bcrypt would compare its first 72 bytes only).
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { MAX_PASSWORD_BYTES } from './password-rules.js';

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, hash: string): Promise<boolean>;
  close(): Promise<void>;
}

interface Pending {
  resolve: (value: string | boolean) => void;
  reject: (error: Error) => void;
}

// The worker is plain CommonJS evaluated from a string: the same code under tsx (whose loader does
// not reach worker threads on Node 20) and in the compiled image, with bcryptjs resolved from here.
const BCRYPT_PATH = createRequire(import.meta.url).resolve('bcryptjs');
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const bcrypt = require(${JSON.stringify(BCRYPT_PATH)});
parentPort.on('message', (job) => {
  try {
    const result = job.op === 'hash'
      ? bcrypt.hashSync(job.password, job.cost)
      : bcrypt.compareSync(job.password, job.hash);
    parentPort.postMessage({ id: job.id, result });
  } catch (error) {
    parentPort.postMessage({ id: job.id, error: String(error && error.message) });
  }
});
`;

export function createPasswordHasher(cost: number, workers = 2): PasswordHasher {
  const pool = Array.from({ length: workers }, () => {
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.unref(); // an idle pool must not keep the process alive
    return worker;
  });
  const pending = new Map<number, Pending>();
  let nextId = 0;
  let turn = 0;
  for (const worker of pool) {
    // a dead worker fails what it was given instead of leaving callers waiting forever
    worker.on('error', (error) => {
      for (const job of pending.values()) job.reject(error);
      pending.clear();
    });
    worker.on('message', (message: { id: number; result?: string | boolean; error?: string }) => {
      const job = pending.get(message.id);
      if (!job) return;
      pending.delete(message.id);
      if (message.error !== undefined) job.reject(new Error(message.error));
      else job.resolve(message.result as string | boolean);
    });
  }

  function run(job: { op: 'hash' | 'compare'; password: string; cost?: number; hash?: string }) {
    const id = nextId++;
    const worker = pool[turn++ % pool.length] as Worker;
    return new Promise<string | boolean>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, ...job });
    });
  }

  return {
    async hash(password) {
      return (await run({ op: 'hash', password, cost })) as string;
    },
    async verify(password, hash) {
      // bcrypt reads only the first 72 bytes: a longer password would match on its prefix. No stored
      // password is that long, so a longer one is simply wrong, everywhere a password is checked.
      if (Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES) return false;
      return (await run({ op: 'compare', password, hash })) as boolean;
    },
    async close() {
      await Promise.all(pool.map((worker) => worker.terminate()));
    },
  };
}
