/**
 * Per interface, from /sys/class/net: net.rx_bps and net.tx_bps (bits per second), net.errors_ps and
 * net.drops_ps (receive + transmit, per second) since the last look, and net.up (operstate). The
 * loopback and the virtual links containers come and go with (veth, docker, bridges of CNI plugins)
 * are skipped: a container stopping must not raise "network down".
 */
import { numberOf, type Host } from '../host.js';
import { sample, type Sample } from '../sample.js';

const SKIPPED = /^(lo|veth.*|docker\d*|br-.*|virbr.*|cni.*|flannel.*|cali.*|vxlan.*|tunl\d*|ifb\d*)$/;
const COUNTERS = ['rx_bytes', 'tx_bytes', 'rx_errors', 'tx_errors', 'rx_dropped', 'tx_dropped'] as const;
type Counters = Record<(typeof COUNTERS)[number], number>;

interface Snapshot {
  at: number;
  interfaces: Map<string, { counters: Counters | null; up: boolean | null }>;
}

async function snapshot(host: Host, at: number): Promise<Snapshot> {
  const interfaces: Snapshot['interfaces'] = new Map();
  for (const name of (await host.list('/sys/class/net')).sort()) {
    if (SKIPPED.test(name)) continue;
    const base = `/sys/class/net/${name}`;
    const values = await Promise.all(COUNTERS.map((c) => host.read(`${base}/statistics/${c}`).then(numberOf)));
    const counters = values.every((v) => v !== null)
      ? (Object.fromEntries(COUNTERS.map((c, i) => [c, values[i] as number])) as Counters)
      : null;
    const state = (await host.read(`${base}/operstate`))?.trim();
    // `unknown` (common for tunnels and some drivers) says nothing: no net.up rather than a false "down"
    interfaces.set(name, { counters, up: state === 'up' ? true : state === 'down' ? false : null });
  }
  return { at, interfaces };
}

export function networkCollector(host: Host, clock: () => number = () => performance.now()) {
  let previous: Snapshot | null = null;
  return async (): Promise<Sample[]> => {
    const now = await snapshot(host, clock());
    const before = previous;
    previous = now;
    const samples: Sample[] = [];
    for (const [name, { counters, up }] of now.interfaces) {
      if (up !== null) samples.push(sample('net.up', up ? 1 : 0, name));
      const earlier = before?.interfaces.get(name)?.counters;
      const seconds = before ? (now.at - before.at) / 1000 : 0;
      if (!counters || !earlier || seconds <= 0) continue;
      const rate = (delta: number) => Math.max(0, delta) / seconds;
      samples.push(
        sample('net.rx_bps', rate(counters.rx_bytes - earlier.rx_bytes) * 8, name),
        sample('net.tx_bps', rate(counters.tx_bytes - earlier.tx_bytes) * 8, name),
        sample(
          'net.errors_ps',
          rate(counters.rx_errors + counters.tx_errors - earlier.rx_errors - earlier.tx_errors),
          name,
        ),
        sample(
          'net.drops_ps',
          rate(counters.rx_dropped + counters.tx_dropped - earlier.rx_dropped - earlier.tx_dropped),
          name,
        ),
      );
    }
    return samples;
  };
}
