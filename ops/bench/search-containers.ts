/**
 * `npm run bench -- search [--systems 2000] [--containers 20] [--rounds 20]`: the quick search's
 * containers, the way it was (the fleet's newest values unnested at every keystroke) against the
 * index in memory it filters now, alternately in one run. Every system reports the simulator's
 * catalogue and `--containers` running containers (13 series each) in its newest values. Prints
 * the median of each per keystroke and what one read of the index costs (at most every 30 s while
 * someone searches). Figures only.
 */
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { createKnex } from '../../db/connection.js';
import { createContainerIndex } from '../../backend/src/search/container-index.js';
import { createSearchRepo } from '../../backend/src/search/repo.js';
import { escapeLike } from '../../backend/src/lib/like.js';
import { createTestDatabase } from '../../backend/src/testing/database.js';
import { SimulatedHost } from '../agent-sim/catalogue.js';
import { seedFleet } from './evaluate-fleet.js';
import { median } from './statistics.js';

const TERMS = ['a', 'ap', 'app', 'app-1', 'app-17', 'pg', 'web', 'x'];

export async function benchSearch(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      systems: { type: 'string', default: '2000' },
      containers: { type: 'string', default: '20' },
      rounds: { type: 'string', default: '20' },
    },
  });
  const db = await createTestDatabase();
  const knex = createKnex({ url: db.url, poolMax: 4 });
  try {
    await seedFleet(knex, Number(values.systems));
    // the newest values of a host with containers: the catalogue's names and instances, values 1
    const samples = new SimulatedHost(1, undefined, Number(values.containers)).sample(Date.now());
    await knex.raw(
      `UPDATE system_latest SET names = ?::text[], instances = ?::text[],
              times = array_fill(now(), ARRAY[?::int]), vals = array_fill(1::float8, ARRAY[?::int])`,
      [samples.map((s) => s.name), samples.map((s) => s.instance ?? ''), samples.length, samples.length],
    );
    await knex.raw('VACUUM ANALYZE system_latest');

    /** The statement each keystroke ran before: the containers whose name contains the term. */
    const before = (term: string) =>
      knex('system_latest as l')
        .join('systems as s', 's.id', 'l.system_id')
        .joinRaw('CROSS JOIN LATERAL unnest(l.names, l.instances, l.times, l.vals) AS u(name, instance, time, value)')
        .whereRaw(`l.names @> ARRAY['container.running']`)
        .where('u.name', 'container.running')
        .whereILike('u.instance', `%${escapeLike(term)}%`)
        .whereRaw(`u.time > now() - interval '1 day'`)
        .select('u.instance as name', 's.id as systemId', 's.name as systemName')
        .orderByRaw('u.instance ILIKE ? DESC, length(u.instance), lower(u.instance), lower(s.name)', [
          `${escapeLike(term)}%`,
        ])
        .limit(8);
    let now = Date.now();
    const index = createContainerIndex(createSearchRepo(knex), { now: () => new Date(now) });
    const built: number[] = [];
    const times = { before: [] as number[], after: [] as number[] };
    for (let round = 0; round < Number(values.rounds); round++) {
      now += 30_000; // each round reads the index again: its cost is shown on its own
      let started = performance.now();
      await index.search('warm', null, 8);
      built.push(performance.now() - started);
      for (const term of TERMS) {
        started = performance.now();
        await before(term);
        times.before.push(performance.now() - started);
        started = performance.now();
        await index.search(term, null, 8);
        times.after.push(performance.now() - started);
      }
    }
    console.log(
      `${values.systems} systems × ${values.containers} containers (${samples.length} series each), ` +
        `${values.rounds} rounds of ${TERMS.length} keystrokes alternately: a keystroke's containers read from the ` +
        `newest values (before) median ${median(times.before).toFixed(1)} ms; from the index in memory (after) ` +
        `median ${median(times.after).toFixed(2)} ms; one read of the index median ${median(built).toFixed(0)} ms`,
    );
  } finally {
    await knex.destroy();
    await db.drop();
  }
}
