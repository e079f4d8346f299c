/**
 * The agent's `config.yaml` (`webhook_secret`, `webhook_url` and
 * `enrollment`). Every value is a double-quoted YAML scalar
 * with everything outside printable ASCII escaped, so no secret or URL can
 * break out of its line or be read as another YAML type.
 */

/** A YAML double-quoted scalar; printable ASCII stays, everything else is a \u or \U escape. */
export function yamlString(value: string): string {
  let out = '"';
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '"' || char === '\\') out += `\\${char}`;
    else if (code >= 0x20 && code < 0x7f) out += char;
    else if (code <= 0xffff) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += `\\U${code.toString(16).padStart(8, '0')}`;
  }
  return `${out}"`;
}

export interface AgentConfigValues {
  /** The public base URL (PUBLIC_URL, else AUTH_URL). */
  base: string;
  webhookSecret: string;
  enrollmentKey: string;
}

export function renderAgentConfig({ base, webhookSecret, enrollmentKey }: AgentConfigValues): string {
  return [
    '# Argus agent configuration, written by the installer: root owns it, only the agent may read it (the webhook secret).',
    `webhook_url: ${yamlString(`${base}/api/webhook/metrics`)}`,
    `webhook_secret: ${yamlString(webhookSecret)}`,
    '# Used on the first report only: it enrolls this host into its cluster.',
    `enrollment: ${yamlString(enrollmentKey)}`,
    '',
  ].join('\n');
}
