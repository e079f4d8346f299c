/** Test rows for the status page tests: clusters and systems written straight to the test database. */
import type { Knex } from 'knex';

let keys = 0;
export async function insertCluster(db: Knex, customerId: number, name: string): Promise<number> {
  const [row] = await db('clusters')
    .insert({ customer_id: customerId, name, enrollment_key: `status-key-${process.pid}-${++keys}` })
    .returning<{ id: number }[]>('id');
  return (row as { id: number }).id;
}

export async function insertSystem(
  db: Knex,
  customerId: number,
  fields: { name: string; hostname?: string; clusterId?: number | null; status?: string },
): Promise<number> {
  const [row] = await db('systems')
    .insert({
      customer_id: customerId,
      cluster_id: fields.clusterId ?? null,
      name: fields.name,
      hostname: fields.hostname ?? fields.name,
      status: fields.status ?? 'ONLINE',
      created_at: '2026-01-01T00:00Z',
    })
    .returning<{ id: number }[]>('id');
  return (row as { id: number }).id;
}
