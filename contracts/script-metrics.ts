/**
 * The series of script checks and drop-in files (docs/protocol.md "Script checks and drop-in
 * metrics"), listed in the metric catalogue beside the other agent series. A drop-in file's own
 * series keep their Prometheus names and are not listed: the catalogue's fallback names them.
 */
export const SCRIPT_STATES = ['OK', 'WARNING', 'CRITICAL', 'UNKNOWN'] as const;

export const SCRIPT_METRICS = {
  'script.state': {
    label: 'Script check state',
    unit: '',
    kind: 'count',
    chart: 'Script check states',
    instance: 'Check',
    preposition: 'of',
  },
  'script.perf': {
    label: 'Script check figure',
    unit: '',
    kind: 'ratio',
    chart: 'Script check figures',
    instance: 'Check figure',
    preposition: 'of',
  },
  'textfile.age_s': {
    label: 'Drop-in file age',
    unit: 's',
    kind: 'seconds',
    chart: 'Drop-in files',
    instance: 'File',
    preposition: 'of',
  },
} as const;

/** "Script check backup is CRITICAL: last backup 30 h ago" (the message: the first line the check printed). */
export function scriptCheckText(check: string, state: number, message: string | null): string {
  const name = SCRIPT_STATES[state] ?? `in state ${state}`;
  return message ? `Script check ${check} is ${name}: ${message}` : `Script check ${check} is ${name}`;
}
