/**
 * The demo shows the children's JSON log lines in a form a newcomer can read:
 * "12:00:01 WARN  migrate  message  key=value". Anything that is not JSON passes through.
 */
const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO ', 40: 'WARN ', 50: 'ERROR', 60: 'FATAL' };
const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg', 'v']);

export function prettyLine(line: string, label: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return `${' '.repeat(15)}${label.padEnd(8)} ${line}`;
  }
  const time = typeof record['time'] === 'string' ? record['time'].slice(11, 19) : '';
  const level = LEVELS[Number(record['level'])] ?? 'INFO ';
  const extras = Object.entries(record)
    .filter(([key]) => !HIDDEN.has(key))
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ');
  return `${time} ${level} ${label.padEnd(8)} ${String(record['msg'] ?? '')}${extras ? `  ${extras}` : ''}`;
}
