/**
 * Containers' images through the real ingest and PostgreSQL: the report's `containers` stored as the
 * latest image per (system, container), a removed container forgotten, an older report replayed after
 * a newer one leaving the newer images, and a report without the field leaving them as they are.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createContainerImagesReader } from '../systems/container-images-repo.js';
import { startIngestHarness, type IngestHarness } from '../testing/ingest-harness.js';

describe("POST /api/webhook/metrics: containers' images", () => {
  let h: IngestHarness;
  let agent: Awaited<ReturnType<IngestHarness['boundAgent']>>;
  before(async () => {
    h = await startIngestHarness();
    agent = await h.boundAgent();
  });
  after(() => h.close());

  const send = async (offsetMs: number, containers?: { name: string; image: string }[]) => {
    const report = h.report(offsetMs, 1, containers ? { containers } : {});
    const reply = await h.post({ reports: [report] }, { token: await agent.token() });
    assert.equal(reply.status, 200, reply.text);
  };
  const images = async () =>
    (await createContainerImagesReader(h.db.knex).ofSystem(agent.systemId)).map(({ name, image }) => ({ name, image }));

  it('keeps the latest image of each container the agent lists, and forgets one it no longer lists', async () => {
    await send(-50_000, [
      { name: 'web', image: 'nginx:1.27' },
      { name: 'db', image: 'postgres:16' },
      { name: 'old', image: 'sha256:0123abcd' },
    ]);
    assert.deepEqual(await images(), [
      { name: 'db', image: 'postgres:16' },
      { name: 'old', image: 'sha256:0123abcd' },
      { name: 'web', image: 'nginx:1.27' },
    ]);

    // `old` removed, `web` recreated from a newer image
    await send(-40_000, [
      { name: 'web', image: 'nginx:1.28' },
      { name: 'db', image: 'postgres:16' },
    ]);
    const expected = [
      { name: 'db', image: 'postgres:16' },
      { name: 'web', image: 'nginx:1.28' },
    ];
    assert.deepEqual(await images(), expected);

    // an older report arriving late (a replayed buffer) does not bring the older image back
    await send(-45_000, [{ name: 'web', image: 'nginx:1.27' }]);
    assert.deepEqual(await images(), expected);

    // a report without the field (an engine that did not answer, an older agent) says nothing of containers
    await send(-30_000);
    assert.deepEqual(await images(), expected);

    // an empty list: the engine answers and runs no container any more
    await send(-20_000, []);
    assert.deepEqual(await images(), []);
  });

  it("answers 400 naming the field for a bad image, and stores none of that request's images", async () => {
    const reports = [
      h.report(-10_000, 1, { containers: [{ name: 'web', image: 'ok:1' }] }),
      h.report(-5_000, 1, {
        containers: [{ name: 'web', image: 'x'.repeat(513) }],
      }),
    ];
    const reply = await h.post({ reports }, { token: await agent.token() });
    assert.equal(reply.status, 400);
    assert.equal(reply.body.details?.field, 'reports.1.containers.0.image');
    assert.deepEqual(await images(), []);
  });
});
