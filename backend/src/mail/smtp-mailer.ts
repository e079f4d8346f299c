/**
 * The Mailer over nodemailer, with the SMTP settings read from the database on
 * every send (they are edited at runtime, so a fresh transport per mail), short
 * timeouts so a dead server cannot hold an evaluation run or a request, and
 * errors that say what failed without ever carrying the password.
 */
import nodemailer from 'nodemailer';
import type { Logger } from '../lib/logger.js';
import type { SmtpSettingsSource, SmtpTransportSettings } from './smtp-settings.js';
import type { Mailer, OutgoingMail } from './mailer.js';

const TIMEOUT_MS = 10_000;

export interface SmtpMailer extends Mailer {
  /** The admin's test send: uses the saved settings even while SMTP is switched off. */
  sendTest(to: string): Promise<void>;
}

export interface MailerDeps {
  smtp: SmtpSettingsSource;
  log: Logger;
}

interface SmtpFailure {
  code?: string;
  response?: string;
  message?: string;
}

/** A readable message for a nodemailer failure, with the password scrubbed out in case a server echoes it. */
export function describeSmtpFailure(error: unknown, settings: SmtpTransportSettings): string {
  const failure = (typeof error === 'object' && error !== null ? error : { message: String(error) }) as SmtpFailure;
  const detail = (failure.response ?? failure.message ?? 'unknown error').trim();
  const where = `${settings.host}:${settings.port}`;
  let message: string;
  // a TLS handshake against a plain port surfaces as a socket error quoting OpenSSL
  const code = failure.code === 'ESOCKET' && /ssl|tls/i.test(detail) ? 'ETLS' : failure.code;
  switch (code) {
    case 'EAUTH':
      message = `The SMTP server ${where} refused the login: ${detail}`;
      break;
    case 'ENOAUTH':
      message = `The SMTP server ${where} asks for a login, but no SMTP user is set`;
      break;
    case 'ETLS':
      message = `TLS with the SMTP server ${where} failed (encryption "${settings.encryption}"): ${detail}`;
      break;
    case 'EENVELOPE':
      message = `The SMTP server ${where} refused the sender or recipient: ${detail}`;
      break;
    case 'EMESSAGE':
      message = `The SMTP server ${where} refused the message: ${detail}`;
      break;
    case 'ETIMEDOUT':
      message = `The SMTP server ${where} did not answer in time: ${detail}`;
      break;
    case 'ECONNECTION':
    case 'ESOCKET':
    case 'EDNS':
      message = `Could not talk to the SMTP server ${where}: ${detail}`;
      break;
    default:
      message = `Sending mail through ${where} failed: ${detail}`;
  }
  return settings.password ? message.split(settings.password).join('[redacted]') : message;
}

export async function deliver(settings: SmtpTransportSettings, mail: OutgoingMail): Promise<void> {
  const transport = nodemailer.createTransport({
    host: settings.host,
    port: settings.port,
    // tls: TLS from the first byte (465); starttls: upgrade or refuse to send in clear; none: never upgrade
    secure: settings.encryption === 'tls',
    requireTLS: settings.encryption === 'starttls',
    ignoreTLS: settings.encryption === 'none',
    auth: settings.user ? { user: settings.user, pass: settings.password ?? '' } : undefined,
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
    socketTimeout: TIMEOUT_MS,
    dnsTimeout: TIMEOUT_MS,
    logger: false,
    debug: false,
  });
  try {
    await transport.sendMail({
      from: { name: settings.fromName, address: settings.fromAddress },
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      ...(mail.html ? { html: mail.html } : {}),
      ...(mail.attachments ? { attachments: mail.attachments } : {}),
      // mail content is ours, but never let it pull local files or URLs into the message
      disableFileAccess: true,
      disableUrlAccess: true,
    });
  } catch (error) {
    throw new Error(describeSmtpFailure(error, settings));
  } finally {
    transport.close();
  }
}

export function createMailer({ smtp, log }: MailerDeps): SmtpMailer {
  async function sendWith(settings: SmtpTransportSettings, mail: OutgoingMail): Promise<void> {
    try {
      await deliver(settings, mail);
      log.debug({ host: settings.host, subject: mail.subject }, 'Mail sent');
    } catch (error) {
      log.warn({ host: settings.host, port: settings.port, subject: mail.subject }, (error as Error).message);
      throw error;
    }
  }

  return {
    isEnabled: () => smtp.isEnabled(),

    async send(mail) {
      const settings = await smtp.getTransportSettings();
      if (!settings) {
        // null means off, or a stored password that no longer opens (logged by the SecretBox)
        throw new Error(
          (await smtp.isEnabled())
            ? 'Mail cannot be sent: the saved SMTP password could not be decrypted ' +
                '(enter it again in the SMTP settings)'
            : 'Mail cannot be sent: SMTP is not enabled',
        );
      }
      await sendWith(settings, mail);
    },

    async sendTest(to) {
      const settings = await smtp.getSettingsForTest();
      await sendWith(settings, {
        to,
        subject: 'Argus test message',
        text: [
          'This is a test message from Argus.',
          '',
          `It was sent through ${settings.host}:${settings.port} (${settings.encryption}).`,
          'If you can read it, the SMTP settings work.',
          '',
        ].join('\n'),
      });
    },
  };
}
