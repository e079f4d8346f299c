/**
 * A real SMTP server in the test process (smtp-server on a free port) that keeps
 * what it receives, so mail tests go over real sockets without a mock.
 */
import { SMTPServer } from 'smtp-server';
import { waitFor } from './net.js';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The login the client used, if any. */
  user: string | null;
  raw: string;
  /** Header block, unfolded. */
  headers: string;
  /** The Subject header as sent (plain ASCII subjects only). */
  subject: string;
  /** Body of a single-part message with quoted-printable undone. */
  text: string;
}

export interface SmtpSink {
  port: number;
  mails: ReceivedMail[];
  /** Resolves with the `count`th mail received (1-based), waiting up to 10 s. */
  nthMail(count: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export interface SmtpSinkOptions {
  /** When set, AUTH is required and only these credentials are accepted. */
  auth?: { user: string; password: string };
  /** Holds each message this long before accepting it (a slow server). */
  delayMs?: number;
}

function decode(raw: string): { headers: string; text: string } {
  const split = raw.indexOf('\r\n\r\n');
  const headers = (split < 0 ? raw : raw.slice(0, split)).replace(/\r\n[ \t]+/g, ' ');
  let body = split < 0 ? '' : raw.slice(split + 4);
  if (/^content-transfer-encoding:\s*quoted-printable/im.test(headers)) {
    body = body
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
  return { headers, text: body };
}

export async function startSmtpSink(options: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    // no certificate a client would trust: plain SMTP only, AUTH allowed over it
    disabledCommands: options.auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !options.auth,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      const { user, password } = options.auth ?? {};
      if (auth.username === user && auth.password === password) callback(null, { user: auth.username });
      else callback(new Error('Authentication credentials invalid'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const decoded = decode(raw);
        const finish = () => {
          mails.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            user: typeof session.user === 'string' ? session.user : null,
            raw,
            ...decoded,
            subject: /^Subject: (.*)$/im.exec(decoded.headers)?.[1] ?? '',
          });
          callback();
        };
        if (options.delayMs) setTimeout(finish, options.delayMs);
        else finish();
      });
    },
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.server.address();
      resolve(typeof address === 'object' && address ? address.port : 0);
    });
  });
  return {
    port,
    mails,
    async nthMail(count) {
      await waitFor(() => mails.length >= count, 10_000, 20);
      return mails[count - 1] as ReceivedMail;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The body of PUT /api/settings/smtp that sends through this sink. */
export function smtpSettingsOf(sink: Pick<SmtpSink, 'port'>) {
  return {
    enabled: true,
    host: '127.0.0.1',
    port: sink.port,
    encryption: 'none',
    user: '',
    password: '',
    fromAddress: 'argus@example.com',
    fromName: 'Argus',
  };
}
