/**
 * Where each stored secret lives. The SecretBox binds every ciphertext to its
 * place (associated data), so a value copied to another row or column does not
 * open. Every feature that seals or opens one of these uses the names from here,
 * and the key check (key-check.ts) re-encrypts exactly these.
 */
export const places = {
  smtpPassword: 'app_settings:smtp.password',
  keyCheck: 'app_settings:secrets_key_check',
  totpSecret: (userId: number) => `users:totp_secret:${userId}`,
  totpPendingSecret: (userId: number) => `users:totp_pending_secret:${userId}`,
  /** agent_settings rows flagged secret (migration 0005, backend/src/agent-settings). */
  agentSetting: (settingId: number) => `agent_settings:value:${settingId}`,
  /** A notification channel's URL (it holds the token) and signing secret (migration 0010, backend/src/channels). */
  channelTarget: (channelId: number) => `notification_channels:target:${channelId}`,
  channelSecret: (channelId: number) => `notification_channels:secret:${channelId}`,
  /** A network check's secret header values, one sealed JSON object (migration 0024, backend/src/checks). */
  checkHeaders: (checkId: number) => `checks:sealed_headers:${checkId}`,
} as const;
