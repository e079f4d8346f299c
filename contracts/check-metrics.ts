/**
 * The series network checks record (contracts/checks.ts), listed in the metric catalogue beside
 * the agents' ones: written for the check (its own system row) whichever place ran it; the
 * measurements are named by the place ("argus", or "system:<id>" for an agent).
 */
const flag = (label: string, on: string, off: string, problem: 0 | 1, instance?: string) => ({
  label,
  unit: '',
  kind: 'flag' as const,
  chart: 'Status',
  instance,
  flag: { on, off, problem },
});

export const CHECK_METRICS = {
  'check.response_ms': {
    label: 'Response time',
    unit: 'ms',
    kind: 'milliseconds',
    chart: 'Response time',
    instance: 'Location',
  },
  'check.packet_loss_pct': {
    label: 'Packet loss',
    unit: '%',
    kind: 'percent',
    chart: 'Packet loss',
    instance: 'Location',
  },
  'check.status_code': { label: 'HTTP status', unit: '', kind: 'count', chart: 'HTTP status', instance: 'Location' },
  'check.up': flag('Last attempt', 'succeeded', 'failed', 0, 'Location'),
  'check.down': flag('Check', 'is down', 'is up', 1),
  'check.slow': flag('Response time', 'is above the limit', 'is within the limit', 1),
  'check.cert_valid': flag('Certificate', 'verifies', 'does not verify', 0, 'Host'),
} as const;
