/**
 * Outgoing e-mail through the SMTP settings edited at runtime (docs/operations.md
 * "Settings edited at runtime"). Implemented by createMailer (mail/smtp-mailer.ts).
 */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Files sent with the mail (the monthly report's PDF), from memory only. */
  attachments?: Array<{ filename: string; content: Buffer; contentType: string }>;
}

export interface Mailer {
  /** SMTP is configured and switched on (read from the database, no restart needed). */
  isEnabled(): Promise<boolean>;
  /** Sends or throws an Error whose message names what failed (never a secret). Short timeouts. */
  send(mail: OutgoingMail): Promise<void>;
}
