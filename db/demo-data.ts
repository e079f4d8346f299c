/**
 * Sample fleet for `seed --demo`: a few customers, clusters and systems with
 * three days of metric history, so a newcomer's console has something to show.
 * Added once: a database that already has customers is left alone.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';

interface DemoSystem {
  name: string;
  os: string;
  cores: number;
  /** typical CPU load; one system runs hot so alerts have something to find */
  cpu: number;
  disk: number;
}

interface DemoCustomer {
  name: string;
  timeZone: string;
  clusters: Record<string, DemoSystem[]>;
}

const FLEET: DemoCustomer[] = [
  {
    name: 'Acme Logistics',
    timeZone: 'Europe/Berlin',
    clusters: {
      Production: [
        {
          name: 'acme-web-01',
          os: 'Ubuntu 24.04',
          cores: 8,
          cpu: 35,
          disk: 62,
        },
        {
          name: 'acme-web-02',
          os: 'Ubuntu 24.04',
          cores: 8,
          cpu: 38,
          disk: 64,
        },
        { name: 'acme-db-01', os: 'Debian 12', cores: 16, cpu: 55, disk: 88 },
      ],
      Staging: [{ name: 'acme-stage-01', os: 'Debian 12', cores: 4, cpu: 10, disk: 40 }],
    },
  },
  {
    name: 'Northwind Health',
    timeZone: 'America/New_York',
    clusters: {
      'Main site': [
        { name: 'nw-app-01', os: 'Rocky Linux 9', cores: 8, cpu: 91, disk: 70 },
        {
          name: 'nw-files-01',
          os: 'Rocky Linux 9',
          cores: 4,
          cpu: 12,
          disk: 93,
        },
      ],
    },
  },
  {
    name: 'Bakery Blum',
    timeZone: 'Europe/Vienna',
    clusters: {
      Office: [{ name: 'blum-nas', os: 'Debian 12', cores: 2, cpu: 6, disk: 51 }],
    },
  },
];

const HISTORY_DAYS = 3;

function enrollmentKey(): string {
  return randomBytes(24).toString('base64url');
}

async function insertId(knex: Knex, table: string, row: Record<string, unknown>): Promise<number> {
  const [inserted] = await knex(table).insert(row).returning<{ id: number }[]>('id');
  if (!inserted) throw new Error(`insert into ${table} returned no id`);
  return inserted.id;
}

export async function seedDemo(knex: Knex, now: Date): Promise<{ customers: number; systems: number } | null> {
  const existing = await knex('customers').first('id');
  if (existing) return null;
  let systems = 0;
  for (const customer of FLEET) {
    const customerId = await insertId(knex, 'customers', {
      name: customer.name,
      time_zone: customer.timeZone,
      notes: 'Demo customer',
    });
    await knex('maintenance_windows').insert({
      customer_id: customerId,
      scope_type: 'customer',
      scope_id: customerId,
      name: 'Sunday patching',
      kind: 'weekly',
      weekdays: [0],
      start_time: '02:00',
      duration_minutes: 60,
      // as old as the demo systems, so last month's demo report has its Sundays (db/migrations/0017)
      created_at: new Date(now.getTime() - 60 * DAY_MS),
    });
    const clusterIds: number[] = [];
    for (const [clusterName, members] of Object.entries(customer.clusters)) {
      const clusterId = await insertId(knex, 'clusters', {
        customer_id: customerId,
        name: clusterName,
        enrollment_key: enrollmentKey(),
      });
      clusterIds.push(clusterId);
      for (const system of members) {
        const systemId = await insertId(knex, 'systems', {
          customer_id: customerId,
          cluster_id: clusterId,
          name: system.name,
          hostname: system.name,
          agent_id: `demo-${system.name}`,
          status: 'ONLINE',
          last_seen_at: now,
          agent_version: '2.28.1',
          os: system.os,
          kernel: '6.8.0-45-generic',
          arch: 'x86_64',
          cores: system.cores,
          // enrolled two months ago, so last month's availability report has a whole month to show
          created_at: new Date(now.getTime() - 60 * DAY_MS),
        });
        await insertHistory(knex, systemId, system, now);
        if (systems % 3 === 0) await insertOutages(knex, systemId, customerId, now);
        systems += 1;
      }
    }
    if (customer === FLEET[0]) await publishStatusPage(knex, customerId, clusterIds);
  }
  return { customers: FLEET.length, systems };
}

/**
 * A published status page of the first customer: its clusters under public names,
 * so "a published status page opens in a private window" works in the demo. The slug is random, as
 * the API makes it; the demo prints the address.
 */
async function publishStatusPage(knex: Knex, customerId: number, clusterIds: number[]): Promise<void> {
  const slug = randomBytes(18).toString('base64url');
  const pageId = await insertId(knex, 'status_pages', {
    customer_id: customerId,
    title: 'Acme Logistics service status',
    announcement: 'Planned maintenance every Sunday 02:00–03:00 (Berlin time).',
    slug,
    slug_hash: createHash('sha256').update(slug, 'utf8').digest('hex'),
  });
  const names = ['Shipment tracking', 'Test environment'];
  await knex('status_page_items').insert(
    clusterIds.map((clusterId, position) => ({
      page_id: pageId,
      position,
      cluster_id: clusterId,
      display_name: names[position] ?? `Service ${position + 1}`,
    })),
  );
}

const DAY_MS = 86_400_000;

/** Two resolved outages of the last weeks (offline alerts), for the availability report. */
async function insertOutages(knex: Knex, systemId: number, customerId: number, now: Date): Promise<void> {
  const outage = (daysAgo: number, minutes: number) => {
    const startedAt = new Date(now.getTime() - daysAgo * DAY_MS);
    return {
      rule_key: 'system.offline',
      rule_kind: 'offline',
      system_id: systemId,
      customer_id: customerId,
      severity: 'CRITICAL',
      state: 'resolved',
      message: 'Not seen for 2 minutes',
      started_at: startedAt,
      resolved_at: new Date(startedAt.getTime() + minutes * 60_000),
    };
  };
  await knex('alerts').insert([outage(20 + (systemId % 5), 45), outage(35 + (systemId % 7), 130)]);
}

/**
 * One report every 5 minutes (one row: a value per series), as smooth daily waves with noise:
 * generated in SQL, fast on WASM too.
 */
async function insertHistory(knex: Knex, systemId: number, system: DemoSystem, now: Date): Promise<void> {
  await knex.raw(
    `WITH series (k, name, instance, base, swing, noise, cap) AS (VALUES
       (1, 'cpu.usage_pct', '', ?::float8, 15::float8, 10::float8, 100::float8),
       (2, 'cpu.iowait_pct', '', 2, 1.5, 2, 100),
       (3, 'mem.used_pct', '', 60, 8, 4, 100),
       (4, 'swap.used_pct', '', 5, 2, 2, 100),
       (5, 'load.per_core_5', '', ? / 100.0, 0.2, 0.2, 64),
       (6, 'disk.used_pct', '/', ?, 0.5, 0.2, 100),
       (7, 'disk.used_pct', '/var', ? - 15, 1, 0.3, 100),
       (8, 'net.rx_bps', 'eth0', 2500000, 1500000, 800000, 1e10),
       (9, 'net.tx_bps', 'eth0', 900000, 600000, 400000, 1e10),
       (10, 'temp.max_c', 'cpu', 52, 6, 3, 120)),
     series_set AS (
       SELECT metric_series_set_id(array_agg(name ORDER BY k), array_agg(instance ORDER BY k)) AS id FROM series)
     INSERT INTO metrics (time, system_id, set_id, vals)
     SELECT t, ?, (SELECT id FROM series_set),
            array_agg(greatest(0, least(m.cap, m.base + m.swing * sin(extract(epoch FROM t) / 86400 * 2 * pi())
                                              + m.noise * (random() - 0.5)))::real ORDER BY m.k)
     FROM generate_series(?::timestamptz - ?::interval, ?::timestamptz, '5 minutes') AS t
     CROSS JOIN series m
     GROUP BY t
     ON CONFLICT DO NOTHING`,
    [system.cpu, system.cpu, system.disk, system.disk, systemId, now, `${HISTORY_DAYS} days`, now],
  );
}
