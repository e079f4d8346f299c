/**
 * The 44 default alert rules (42 on the newest value, 2 forecasts) and the default event rule of docs/rules.md
 * ("Default rules"). Seeded once per instance.
 */
export type Severity = 'INFO' | 'WARNING' | 'CRITICAL';
export type Operator = '>' | '>=' | '<' | '<=' | '==' | '!=';

export interface DefaultAlertRule {
  key: string;
  name: string;
  kind: 'metric' | 'offline' | 'forecast';
  severity: Severity;
  metric: string | null;
  operator: Operator | null;
  threshold: number | null;
  /** compare |value| (clock skew can go either way) */
  absolute?: boolean;
  forSeconds: number;
  /** Its alerts count as downtime in availability reports (the service is really unavailable). */
  countsAsDowntime?: boolean;
  /** Seeded switched off (noisy where nobody chose it): an admin turns it on, or an override per glob. */
  enabled?: boolean;
  /** Forecast rules: how far ahead the projected threshold may lie. */
  horizonSeconds?: number;
}

export interface DefaultEventRule {
  key: string;
  name: string;
  severity: Severity;
  eventType: string | null;
  derived: 'reboot' | null;
  holdSeconds: number;
}

const MIN = 60;
const HOUR = 3600;
const DAY = 86_400;

function rule(
  key: string,
  name: string,
  metric: string,
  operator: Operator,
  threshold: number,
  forSeconds: number,
  severity: Severity,
  extra: Partial<DefaultAlertRule> = {},
): DefaultAlertRule {
  return { key, name, kind: 'metric', severity, metric, operator, threshold, forSeconds, ...extra };
}

/**
 * Containers and watched processes (added to existing installations by migration 0025, which keeps
 * its own copy of these rows). CPU and memory of a container's limit are off: many containers run
 * at their limit on purpose; an override per container glob turns them on where it matters.
 */
export const CONTAINER_AND_PROCESS_RULES: readonly DefaultAlertRule[] = [
  rule('container.exited', 'Container exited unexpectedly', 'container.exited_unexpectedly', '==', 1, 0, 'CRITICAL'),
  rule('container.unhealthy', 'Container unhealthy', 'container.healthy', '==', 0, MIN, 'WARNING'),
  rule('container.crash_loop', 'Container restarting in a loop', 'container.restarts_recent', '>=', 3, 0, 'CRITICAL'),
  rule('container.cpu', 'Container CPU at its limit', 'container.cpu_pct', '>', 90, 10 * MIN, 'WARNING', {
    enabled: false,
  }),
  rule('container.memory', 'Container memory near its limit', 'container.mem_pct', '>', 90, 5 * MIN, 'WARNING', {
    enabled: false,
  }),
  rule('process.not_running', 'Process not running', 'processes.count', '==', 0, 2 * MIN, 'CRITICAL'),
];

export const DEFAULT_ALERT_RULES: readonly DefaultAlertRule[] = [
  {
    key: 'system.offline',
    name: 'System offline',
    kind: 'offline',
    severity: 'CRITICAL',
    metric: null,
    operator: null,
    threshold: null,
    forSeconds: 2 * MIN,
    countsAsDowntime: true,
  },
  rule('cpu.high', 'CPU usage high', 'cpu.usage_pct', '>', 85, 10 * MIN, 'WARNING'),
  rule('cpu.critical', 'CPU usage critical', 'cpu.usage_pct', '>', 95, 10 * MIN, 'CRITICAL'),
  rule('cpu.iowait', 'CPU I/O wait high', 'cpu.iowait_pct', '>', 20, 10 * MIN, 'WARNING'),
  rule('cpu.steal', 'CPU steal high', 'cpu.steal_pct', '>', 10, 15 * MIN, 'WARNING'),
  rule('load.high', 'Load per core high', 'load.per_core_5', '>', 2, 15 * MIN, 'WARNING'),
  rule('load.critical', 'Load per core critical', 'load.per_core_5', '>', 4, 15 * MIN, 'CRITICAL'),
  rule('mem.high', 'Memory usage high', 'mem.used_pct', '>', 90, 10 * MIN, 'WARNING'),
  rule('mem.critical', 'Memory usage critical', 'mem.used_pct', '>', 97, 5 * MIN, 'CRITICAL'),
  rule('mem.oom', 'Out-of-memory kills', 'mem.oom_kills', '>', 0, 0, 'WARNING'),
  rule('swap.high', 'Swap usage high', 'swap.used_pct', '>', 50, 15 * MIN, 'WARNING'),
  rule('swap.critical', 'Swap usage critical', 'swap.used_pct', '>', 90, 10 * MIN, 'CRITICAL'),
  rule('disk.high', 'Disk usage high', 'disk.used_pct', '>', 85, 5 * MIN, 'WARNING'),
  rule('disk.critical', 'Disk usage critical', 'disk.used_pct', '>', 95, 5 * MIN, 'CRITICAL'),
  rule('inodes.high', 'Inode usage high', 'disk.inodes_used_pct', '>', 85, 5 * MIN, 'WARNING'),
  rule('inodes.critical', 'Inode usage critical', 'disk.inodes_used_pct', '>', 95, 5 * MIN, 'CRITICAL'),
  rule('disk.readonly', 'Filesystem read-only', 'disk.readonly', '==', 1, 0, 'CRITICAL'),
  rule('disk.io', 'Disk I/O saturated', 'disk.io_util_pct', '>', 90, 15 * MIN, 'WARNING'),
  rule('disk.smart', 'Disk SMART failure', 'disk.smart_ok', '==', 0, 0, 'CRITICAL'),
  rule('raid.degraded', 'RAID array degraded', 'raid.degraded', '>', 0, 0, 'CRITICAL'),
  rule('net.errors', 'Network errors', 'net.errors_ps', '>', 10, 10 * MIN, 'WARNING'),
  rule('net.drops', 'Network drops', 'net.drops_ps', '>', 100, 10 * MIN, 'WARNING'),
  rule('net.down', 'Network interface down', 'net.up', '==', 0, 5 * MIN, 'WARNING'),
  rule('conntrack.high', 'Connection tracking table full', 'conntrack.used_pct', '>', 90, 5 * MIN, 'WARNING'),
  rule('services.failed', 'Failed services', 'services.failed', '>', 0, 5 * MIN, 'WARNING'),
  rule('service.down', 'Service down', 'service.active', '==', 0, 2 * MIN, 'CRITICAL', { countsAsDowntime: true }),
  rule('proc.zombies', 'Zombie processes', 'proc.zombies', '>', 20, 15 * MIN, 'WARNING'),
  rule('fd.high', 'File descriptors nearly exhausted', 'fd.used_pct', '>', 90, 5 * MIN, 'WARNING'),
  rule('clock.skew', 'Clock skew', 'time.offset_ms', '>', 2000, 5 * MIN, 'WARNING', { absolute: true }),
  rule('updates.security', 'Security updates pending', 'updates.security', '>', 0, 7 * DAY, 'INFO'),
  rule('reboot.required', 'Reboot required', 'system.reboot_required', '==', 1, 7 * DAY, 'INFO'),
  rule('temp.high', 'Temperature high', 'temp.max_c', '>', 85, 5 * MIN, 'WARNING'),
  rule('temp.critical', 'Temperature critical', 'temp.max_c', '>', 95, 2 * MIN, 'CRITICAL'),
  rule('cert.expiring', 'Certificate expiring', 'cert.days_left', '<', 14, 0, 'WARNING'),
  rule('cert.critical', 'Certificate about to expire', 'cert.days_left', '<', 3, 0, 'CRITICAL'),
  rule('backup.stale', 'Backup stale', 'backup.age_h', '>', 26, 0, 'WARNING'),
  ...CONTAINER_AND_PROCESS_RULES,
  // a disk that fills up days ahead, on the trend of the last day (docs/rules.md "Forecast rules")
  rule('disk.forecast', 'Disk full within 3 days', 'disk.used_pct', '>=', 100, 0, 'WARNING', {
    kind: 'forecast',
    horizonSeconds: 72 * HOUR,
  }),
  rule('disk.forecast_critical', 'Disk full within a day', 'disk.used_pct', '>=', 100, 0, 'CRITICAL', {
    kind: 'forecast',
    horizonSeconds: 24 * HOUR,
  }),
];

export const DEFAULT_EVENT_RULES: readonly DefaultEventRule[] = [
  {
    key: 'system.rebooted',
    name: 'System rebooted',
    severity: 'INFO',
    // raised by an event of this type, or derived when uptime.s goes down
    eventType: 'system.reboot',
    derived: 'reboot',
    holdSeconds: 30 * MIN,
  },
];

/**
 * The default rules of network checks (docs/rules.md "Default rules"), seeded once by
 * ensureCheckRules, apart from the rules above (they read series only checks record). A check's
 * certificate is `cert.days_left` like the agent's, so `cert.expiring` and `cert.critical` apply.
 */
export const DEFAULT_CHECK_RULES: readonly DefaultAlertRule[] = [
  rule('check.down', 'Check down', 'check.down', '==', 1, 0, 'CRITICAL', { countsAsDowntime: true }),
  rule('check.slow', 'Check slow', 'check.slow', '==', 1, 2 * MIN, 'WARNING'),
];

/**
 * The default rules of script checks (docs/rules.md "Default rules"), seeded once by
 * ensureScriptRules apart from the rules above, like the network checks'. A check's state is the
 * series `script.state{check}` (0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN): one rule per state gives
 * each its severity, and `script.unknown`'s severity is the setting for UNKNOWN (WARNING unless an
 * admin, or an override for a customer, cluster or system, says otherwise).
 */
export const DEFAULT_SCRIPT_RULES: readonly DefaultAlertRule[] = [
  rule('script.warning', 'Script check WARNING', 'script.state', '==', 1, 0, 'WARNING'),
  rule('script.critical', 'Script check CRITICAL', 'script.state', '==', 2, 0, 'CRITICAL'),
  rule('script.unknown', 'Script check UNKNOWN', 'script.state', '==', 3, 0, 'WARNING'),
];
