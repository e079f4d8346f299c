import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { startIngestHarness, type IngestHarness } from '../testing/ingest-harness.js';
import { INFLATE_AT_ONCE_BYTES } from './body.js';

describe('POST /api/webhook/metrics: body and validation', () => {
  let h: IngestHarness;
  let agent: Awaited<ReturnType<IngestHarness['boundAgent']>>;
  before(async () => {
    h = await startIngestHarness();
    agent = await h.boundAgent();
  });
  after(() => h.close());

  const ts = () => h.clock.now().toISOString();
  const good = () => ({ ts: ts(), metrics: [{ name: 'cpu.usage_pct', value: 1 }] });

  // [case, raw body, field named in details]
  const invalid: [string, () => string, string][] = [
    ['NaN (not JSON)', () => `{"reports":[{"ts":"${ts()}","metrics":[{"name":"cpu.usage_pct","value":NaN}]}]}`, 'body'],
    [
      'Infinity (1e999)',
      () => `{"reports":[{"ts":"${ts()}","metrics":[{"name":"cpu.usage_pct","value":1e999}]}]}`,
      'reports.0.metrics.0.value',
    ],
    ['a name with capitals', () => body([{ name: 'CPU.usage', value: 1 }]), 'reports.0.metrics.0.name'],
    ['a name with a space', () => body([{ name: 'cpu usage', value: 1 }]), 'reports.0.metrics.0.name'],
    ['an empty name', () => body([{ name: '', value: 1 }]), 'reports.0.metrics.0.name'],
    ['a 65-character name', () => body([{ name: 'a'.repeat(65), value: 1 }]), 'reports.0.metrics.0.name'],
    ['a string value', () => body([{ name: 'cpu.usage_pct', value: '12' }]), 'reports.0.metrics.0.value'],
    ['a null value', () => body([{ name: 'cpu.usage_pct', value: null }]), 'reports.0.metrics.0.value'],
    [
      'an instance of 129 characters',
      () => body([{ name: 'disk.used_pct', instance: 'x'.repeat(129), value: 1 }]),
      'reports.0.metrics.0.instance',
    ],
    [
      'a control character in an instance',
      () => body([{ name: 'disk.used_pct', instance: '/var\u0007', value: 1 }]),
      'reports.0.metrics.0.instance',
    ],
    [
      'a NUL in an instance',
      () => body([{ name: 'disk.used_pct', instance: '/v\u0000ar', value: 1 }]),
      'reports.0.metrics.0.instance',
    ],
    [
      'a newline in the hostname',
      () => JSON.stringify({ agent: { hostname: 'web\n01' }, reports: [good()] }),
      'agent.hostname',
    ],
    ['a missing ts', () => JSON.stringify({ reports: [{ metrics: [] }] }), 'reports.0.ts'],
    ['a ts that is not ISO', () => JSON.stringify({ reports: [{ ts: 'yesterday', metrics: [] }] }), 'reports.0.ts'],
    ['a numeric ts', () => JSON.stringify({ reports: [{ ts: Date.now(), metrics: [] }] }), 'reports.0.ts'],
    ['reports that are not an array', () => JSON.stringify({ reports: { ts: ts() } }), 'reports'],
    ['no reports', () => JSON.stringify({ reports: [] }), 'reports'],
    ['501 reports', () => JSON.stringify({ reports: Array.from({ length: 501 }, () => good()) }), 'reports'],
    [
      'metrics that are not an array',
      () => JSON.stringify({ reports: [{ ts: ts(), metrics: 'cpu' }] }),
      'reports.0.metrics',
    ],
    ['cores as a string', () => JSON.stringify({ agent: { cores: '8' }, reports: [good()] }), 'agent.cores'],
    [
      'a bad event severity',
      () => JSON.stringify({ reports: [{ ...good(), events: [{ type: 'x', severity: 'BAD' }] }] }),
      'reports.0.events.0.severity',
    ],
    [
      'a duplicate key that changes meaning',
      () => `{"reports":[{"ts":"${ts()}","metrics":[{"name":"a.b","value":1,"value":99}]}]}`,
      'reports.0.metrics.0.value',
    ],
    [
      'the same metric twice in a report',
      () =>
        body([
          { name: 'a.b', value: 1 },
          { name: 'a.b', value: 2 },
        ]),
      'reports.0.metrics.1',
    ],
    [
      "a container's image of 513 characters",
      () => JSON.stringify({ reports: [{ ...good(), containers: [{ name: 'web', image: 'i'.repeat(513) }] }] }),
      'reports.0.containers.0.image',
    ],
    [
      "a control character in a container's image",
      () => JSON.stringify({ reports: [{ ...good(), containers: [{ name: 'web', image: 'nginx\u0000:1' }] }] }),
      'reports.0.containers.0.image',
    ],
    [
      'a container without an image',
      () => JSON.stringify({ reports: [{ ...good(), containers: [{ name: 'web' }] }] }),
      'reports.0.containers.0.image',
    ],
    [
      'the same container twice in a report',
      () =>
        JSON.stringify({
          reports: [
            {
              ...good(),
              containers: [
                { name: 'web', image: 'a' },
                { name: 'web', image: 'b' },
              ],
            },
          ],
        }),
      'reports.0.containers.1.name',
    ],
    [
      '121 containers in a report',
      () =>
        JSON.stringify({
          reports: [{ ...good(), containers: Array.from({ length: 121 }, (_, i) => ({ name: `c${i}`, image: 'a' })) }],
        }),
      'reports.0.containers',
    ],
    ['an array body', () => '[1,2]', ''],
    [
      'a valid first report and an invalid fourth',
      () => JSON.stringify({ reports: [good(), good(), good(), { ts: ts(), metrics: [{ name: 'x', value: 'NaN' }] }] }),
      'reports.3.metrics.0.value',
    ],
  ];
  function body(metrics: unknown[]) {
    return JSON.stringify({ reports: [{ ts: ts(), metrics }] });
  }

  for (const [name, makeBody, field] of invalid) {
    it(`answers 400 naming the field and stores nothing for ${name}`, async () => {
      const reply = await h.post(makeBody(), { token: await agent.token() });
      assert.equal(reply.status, 400, reply.text);
      if (field) assert.equal(reply.body.details?.field, field, reply.text);
      assert.ok(reply.body.error.length > 0);
      assert.equal(await h.metricCount(agent.systemId), 0);
    });
  }

  it('answers 415 to another content type, and to an unknown Content-Encoding', async () => {
    const token = await agent.token();
    const raw = JSON.stringify({ reports: [good()] });
    for (const headers of [
      { 'content-type': 'text/plain' },
      { 'content-type': 'application/x-www-form-urlencoded' },
      { 'content-type': 'application/json', 'content-encoding': 'br' },
    ] as Record<string, string>[]) {
      assert.equal((await h.post(raw, { token, headers })).status, 415, JSON.stringify(headers));
    }
    assert.equal(await h.metricCount(agent.systemId), 0);
  });

  it('accepts a gzip body', async () => {
    const reply = await h.post({ reports: [h.report(-10_000, 5)] }, { token: await agent.token(), gzip: true });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.accepted, 1);
    assert.equal(await h.metricCount(agent.systemId), 5);
  });

  it('answers 400 to a body that claims gzip but is not', async () => {
    const reply = await h.post('{"reports":[]}', {
      token: await agent.token(),
      headers: { 'content-encoding': 'gzip' },
    });
    assert.equal(reply.status, 400);
  });

  it('reads a gzip body of several members as one, and answers 400 to an empty, cut or trailed one', async () => {
    const token = await agent.token();
    const json = JSON.stringify({ reports: [h.report(-15_000, 3)] });
    const cut = Math.floor(json.length / 2);
    const members = Buffer.concat([gzipSync(json.slice(0, cut)), gzipSync(json.slice(cut))]);
    const reply = await h.post(members, { token, headers: { 'content-encoding': 'gzip' } });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.accepted, 1);
    const whole = gzipSync(json);
    for (const [what, raw] of [
      ['empty', Buffer.alloc(0)],
      ['cut short', whole.subarray(0, whole.length - 10)],
      ['followed by bytes that are no gzip', Buffer.concat([whole, Buffer.from('xx')])],
    ] as const) {
      const refused = await h.post(raw, { token, headers: { 'content-encoding': 'gzip' } });
      assert.equal(refused.status, 400, what);
      assert.equal(refused.body.error, 'Body is not valid gzip', what);
      assert.equal(refused.body.details?.field, 'body', what);
    }
  });

  it('inflates a large gzip body (a backlog) beside the event loop, with the same answers', async () => {
    const token = await agent.token();
    let seed = 7;
    const noise = () => (seed = (seed * 48_271) % 2_147_483_647) / 1000;
    const reports = Array.from({ length: 300 }, (_, i) => {
      const report = h.report(-(40 + i) * 1000, 60);
      return { ...report, metrics: report.metrics.map((sample) => ({ ...sample, value: noise() })) };
    });
    const whole = gzipSync(JSON.stringify({ reports }));
    assert.ok(whole.length > INFLATE_AT_ONCE_BYTES, `${whole.length} bytes compressed`);
    const reply = await h.post(whole, { token, headers: { 'content-encoding': 'gzip' } });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.accepted, 300);
    const cut = await h.post(whole.subarray(0, whole.length - 10), { token, headers: { 'content-encoding': 'gzip' } });
    assert.deepEqual([cut.status, cut.body.error], [400, 'Body is not valid gzip']);
    const bomb = gzipSync(Buffer.concat([Buffer.from(JSON.stringify({ reports })), Buffer.alloc(5 * 1024 * 1024, 32)]));
    assert.ok(bomb.length > INFLATE_AT_ONCE_BYTES);
    const over = await h.post(bomb, { token, headers: { 'content-encoding': 'gzip' } });
    assert.equal(over.status, 413);
    assert.match(over.body.error, /after decompression/);
  });

  it('accepts a gzip body of exactly 4 MiB unpacked, and refuses one byte more with 413', async () => {
    const token = await agent.token();
    const opening = `{"reports":[${JSON.stringify(h.report(-25_000))}]`;
    const exactly = (bytes: number) => gzipSync(`${opening}${' '.repeat(bytes - opening.length - 1)}}`);
    const fits = await h.post(exactly(4 * 1024 * 1024), { token, headers: { 'content-encoding': 'gzip' } });
    assert.equal(fits.status, 200, fits.text);
    const over = await h.post(exactly(4 * 1024 * 1024 + 1), { token, headers: { 'content-encoding': 'gzip' } });
    assert.equal(over.status, 413);
    assert.match(over.body.error, /after decompression/);
  });

  it('answers 413 to more than 4 MiB, plain or after decompression (a gzip bomb stops at the limit)', async () => {
    const token = await agent.token();
    const filler = ' '.repeat(4 * 1024 * 1024);
    const big = `{"reports":[${JSON.stringify(h.report(-20_000))}]${filler}}`;
    assert.equal((await h.post(big, { token })).status, 413);
    assert.equal((await h.post(big, { token, chunked: true })).status, 413, 'counted while streaming too');
    const bomb = gzipSync(Buffer.from(big + ' '.repeat(60 * 1024 * 1024)));
    assert.ok(bomb.length < 200_000, 'a small compressed body');
    const started = Date.now();
    const reply = await h.post(bomb, { token, headers: { 'content-encoding': 'gzip' } });
    assert.equal(reply.status, 413);
    assert.ok(Date.now() - started < 2000);
    // just under the limit is fine
    const fits = `{"reports":[${JSON.stringify(h.report(-20_000))}]${' '.repeat(4 * 1024 * 1024 - 2000)}}`;
    const ok = await h.post(fits, { token, gzip: true });
    assert.equal(ok.status, 200, ok.text);
  });

  it('stores 500 buffered reports of one request', async () => {
    const other = await h.boundAgent();
    const reports = Array.from({ length: 500 }, (_, i) => h.report(-i * 1000, 2));
    const reply = await h.post({ reports }, { token: await other.token() });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.accepted, 500);
    assert.equal(await h.metricCount(other.systemId), 1000);
  });
});

describe('POST /api/webhook/metrics behind the app body parser (a wrong assembly)', () => {
  let h: IngestHarness;
  before(async () => {
    h = await startIngestHarness({}, { parseBodiesFirst: true });
  });
  after(() => h.close());

  it('fails at once with a 500 and a log line naming the cause, instead of waiting forever', async () => {
    const agent = await h.boundAgent();
    const reply = await h.post({ reports: [h.report()] }, { token: await agent.token() });
    assert.equal(reply.status, 500);
    assert.ok(
      h.logs.lines().some((line) => JSON.stringify(line).includes('mount the ingest router before the body parser')),
    );
  });
});
