import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

export interface CapturedLogger {
  log: Logger;
  /** Every `msg` logged so far, in order. */
  messages(): string[];
  lines(): Record<string, unknown>[];
}

/** A real pino logger writing into memory, so tests can read what was logged. */
export function captureLogger(): CapturedLogger {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      callback();
    },
  });
  const log = pino({ level: 'debug' }, stream);
  return {
    log,
    messages: () => lines.map((line) => String(line['msg'] ?? '')),
    lines: () => lines,
  };
}
