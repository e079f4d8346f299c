/**
 * The one structured logger: one JSON line per event on stdout. Known secret
 * fields are redacted by path so a careless `log.info({ body })` cannot leak them.
 */
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

const SECRET_KEYS = [
  'password',
  'passwordHash',
  'password_hash',
  'token',
  'secret',
  'authorization',
  'cookie',
  'totpSecret',
  'webhookSecret',
  'authSecret',
  'cronSecret',
  'settingsEncryptionKey',
];

export function createLogger(options: { level?: string; name?: string; destination?: DestinationStream } = {}): Logger {
  return pino(
    {
      name: options.name ?? 'argus',
      level: options.level ?? process.env['LOG_LEVEL'] ?? 'info',
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: [
          ...SECRET_KEYS,
          ...SECRET_KEYS.map((key) => `*.${key}`),
          'req.headers.authorization',
          'req.headers.cookie',
        ],
        censor: '[redacted]',
      },
    },
    options.destination ?? pino.destination(1),
  );
}
