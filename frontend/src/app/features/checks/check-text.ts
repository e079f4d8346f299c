import { Check, CheckResult, CheckSettings } from '@console/shared/checks/checks-api';

/** The stored settings as answered (a secret header's value is null): read as the settings they are. */
type AnsweredSettings = Check['settings'];

/** What a check looks at, in one line: the URL, "host:port", the host pinged, "name (A) at resolver". */
export function checkTarget(settings: AnsweredSettings): string {
  const s = settings as CheckSettings;
  switch (s.type) {
    case 'http':
      return s.method && s.method !== 'GET' ? `${s.method} ${s.url}` : s.url;
    case 'tcp':
      return `${s.host}:${s.port}`;
    case 'ping':
      return s.host;
    case 'dns':
      return `${s.name} (${s.recordType ?? 'A'})${s.server ? ` at ${s.server}` : ''}`;
  }
}

const ms = (value: number) => `${value < 10 ? value.toFixed(1) : Math.round(value)} ms`;

/** "whether the keyword matched", as the person who set the keyword reads it. */
function keywordText(matched: boolean | null): string | null {
  if (matched === null) return null;
  return matched ? 'keyword as expected' : 'keyword not as expected';
}

/**
 * One run's outcome in words: "HTTP 200 · 48 ms · keyword as expected · certificate 80 days", or
 * why it failed ("connection refused", "refused by policy: …"). Never any of the answer's body:
 * the server sends none.
 */
export function resultText(result: CheckResult | null): string {
  if (!result) return 'Not run yet';
  const parts: (string | null)[] = [
    result.up ? null : (result.reason ?? 'failed'),
    result.status === null ? null : `HTTP ${result.status}`,
    result.responseMs === null ? null : ms(result.responseMs),
    result.slow ? 'slower than its limit' : null,
    keywordText(result.keywordMatched),
    result.packetLossPct === null ? null : `${result.packetLossPct} % loss`,
    result.certDaysLeft === null ? null : `certificate ${Math.floor(result.certDaysLeft)} days`,
    result.certValid === false ? 'certificate does not verify' : null,
  ];
  return parts.filter((part): part is string => part !== null).join(' · ');
}

/** Every `intervalSeconds` in words: "every 30 s", "every 5 min", "every 1 h". */
export function intervalText(seconds: number): string {
  if (seconds % 3600 === 0) return `every ${seconds / 3600} h`;
  if (seconds % 60 === 0) return `every ${seconds / 60} min`;
  return `every ${seconds} s`;
}
