/**
 * What the mailer needs to know about the SMTP settings. The settings feature stores and edits them
 * and implements `SmtpSettingsSource`; mail depends on this shape only, never on settings.
 */
export type SmtpEncryption = 'tls' | 'starttls' | 'none';

export interface SmtpTransportSettings {
  enabled: boolean;
  host: string;
  port: number;
  encryption: SmtpEncryption;
  user: string;
  password: string | null;
  fromAddress: string;
  fromName: string;
}

export interface SmtpSettingsSource {
  isEnabled(): Promise<boolean>;
  /** null while SMTP is switched off. */
  getTransportSettings(): Promise<SmtpTransportSettings | null>;
  /** The settings as saved, switched on or not (the test message uses them). */
  getSettingsForTest(): Promise<SmtpTransportSettings>;
}
