import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  agentBodySchema,
  MAX_CONTAINERS_PER_REPORT,
  MAX_EVENTS_PER_REPORT,
  MAX_IMAGE_LENGTH,
  MAX_METRICS_PER_REPORT,
  MAX_REPORTS,
} from '../../../contracts/agent-report.js';
import { Invalid } from '../lib/errors.js';
import { parseInput } from '../lib/validate.js';
import { parseAgentBody } from './agent-body.js';

/** What the zod schema answers: its data, or the 400's message and field. */
function bySchema(body: unknown): { data: unknown } | { message: string; details: unknown } {
  try {
    return { data: parseInput(agentBodySchema, body) };
  } catch (error) {
    assert.ok(error instanceof Invalid);
    return { message: error.message, details: error.details };
  }
}

function byHand(body: unknown): { data: unknown } | { message: string; details: unknown } {
  try {
    return { data: parseAgentBody(body) };
  } catch (error) {
    assert.ok(error instanceof Invalid);
    return { message: error.message, details: error.details };
  }
}

// values that are sometimes right and sometimes wrong in every way the schema looks at
const anyValue = fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.constant(null), fc.boolean(), fc.constant([]));
const name = fc.oneof(
  { weight: 150, arbitrary: fc.stringMatching(/^[a-z0-9_.]{1,12}$/) },
  fc.constantFrom('', 'CPU.usage', 'cpu usage', 'a'.repeat(64), 'a'.repeat(65), 'ä'),
  anyValue,
);
const text = (max: number) =>
  fc.oneof(
    { weight: 150, arbitrary: fc.string({ maxLength: 8 }).filter((s) => !/[\p{Cc}\p{Cs}\p{Zl}\p{Zp}]/u.test(s)) },
    fc.constantFrom('x'.repeat(max), 'x'.repeat(max + 1), 'web\n01', 'a\u0000b', '\u2028', '\ud800', ''),
    anyValue,
  );
const value = fc.oneof(
  { weight: 150, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  fc.constantFrom(Infinity, -Infinity, NaN, '12', null, -0, 2 ** 60),
);
const ts = fc.oneof(
  {
    weight: 150,
    arbitrary: fc
      .date({ noInvalidDate: true, min: new Date('1990-01-01Z'), max: new Date('2200-01-01Z') })
      .map((d) => d.toISOString()),
  },
  fc.constantFrom(
    '2026-11-28T10:00:00+01:00',
    '2026-11-28T10:00:00.123456789-05:30',
    '2026-11-28T10:00:00',
    '2026-11-28 10:00:00Z',
    '2026-02-30T10:00:00Z',
    '2024-02-29T23:59:59Z',
    '2023-02-29T23:59:59Z',
    'yesterday',
  ),
  fc.integer(),
);
/** An object of `members`, each sometimes absent, sometimes joined by a key the schema drops. */
function object(members: Record<string, fc.Arbitrary<unknown>>, required: string[] = []) {
  return fc
    .tuple(
      fc.record(members, { requiredKeys: required }),
      fc.oneof({ weight: 150, arbitrary: fc.constant(null) }, fc.constantFrom('extra', '__proto__', 'toString')),
    )
    .map(([record, extra]) => {
      if (extra !== null) Object.defineProperty(record, extra, { value: 1, enumerable: true, writable: true });
      return record as Record<string, unknown>;
    });
}
const sample = object({ name, instance: text(128), value }, ['name', 'value']);
const event = object(
  {
    type: name,
    severity: fc.oneof(
      { weight: 100, arbitrary: fc.constantFrom('INFO', 'WARNING', 'CRITICAL') },
      fc.constantFrom('BAD', 'info'),
      anyValue,
    ),
    message: text(1024),
  },
  ['type'],
);
const check = object(
  {
    name: fc.oneof({ weight: 20, arbitrary: fc.constantFrom('disk', 'load') }, text(128)),
    state: fc.oneof(
      { weight: 100, arbitrary: fc.constantFrom('OK', 'WARNING', 'CRITICAL', 'UNKNOWN') },
      fc.constantFrom('ok', 'BAD'),
      anyValue,
    ),
    message: text(512),
    ran: ts,
  },
  ['name', 'state', 'ran'],
);
const container = object(
  {
    name: fc.oneof({ weight: 20, arbitrary: fc.constantFrom('web', 'db') }, text(128)),
    image: fc.oneof({ weight: 20, arbitrary: fc.constantFrom('nginx:1.27', '') }, text(512)),
  },
  ['name', 'image'],
);
const metrics = fc.oneof(
  { weight: 100, arbitrary: fc.array(sample, { maxLength: 6 }) },
  // the same name (and instance) twice
  fc
    .tuple(fc.array(sample, { minLength: 1, maxLength: 4 }), fc.nat())
    .map(([list, at]) => [...list, { ...list[at % list.length] }]),
  anyValue,
);
const report = object(
  {
    ts,
    metrics,
    events: fc.oneof({ weight: 100, arbitrary: fc.array(event, { maxLength: 3 }) }, anyValue),
    scripts: fc.oneof({ weight: 100, arbitrary: fc.array(check, { maxLength: 3 }) }, anyValue),
    containers: fc.oneof({ weight: 100, arbitrary: fc.array(container, { maxLength: 3 }) }, anyValue),
  },
  ['ts', 'metrics'],
);
const agent = object({
  version: text(64),
  hostname: text(255),
  os: text(255),
  kernel: text(255),
  arch: text(64),
  cores: fc.oneof(
    { weight: 100, arbitrary: fc.integer({ min: -2, max: 1_000_002 }) },
    fc.constantFrom(1.5, 1e6, 1e21, '8'),
    anyValue,
  ),
  enrollment: text(256),
});
const body = fc.oneof(
  {
    weight: 150,
    arbitrary: object(
      {
        agent,
        reports: fc.oneof({ weight: 20, arbitrary: fc.array(report, { minLength: 1, maxLength: 3 }) }, fc.constant([])),
      },
      ['reports'],
    ),
  },
  anyValue,
);

describe('the agent body checked by hand', () => {
  it('answers as the zod schema does: the same data, or the same 400 message and field', () => {
    let plain = 0;
    let refused = 0;
    fc.assert(
      fc.property(body, (generated) => {
        const expected = bySchema(structuredClone(generated));
        const input = structuredClone(generated);
        const actual = byHand(input);
        assert.deepStrictEqual(actual, expected);
        if ('data' in actual && actual.data === input) plain += 1;
        if (!('data' in actual)) refused += 1;
      }),
      { numRuns: 4000 },
    );
    // the generator must exercise both paths: valid bodies checked by hand, and refusals
    assert.ok(plain > 400, `${plain} bodies passed by hand`);
    assert.ok(refused > 400, `${refused} bodies refused`);
  });

  it('passes a valid body without copying it: the parsed JSON itself, defaults filled in', () => {
    const input = JSON.parse(
      '{"reports":[{"ts":"2026-11-28T10:00:00Z","metrics":[{"name":"cpu.usage_pct","value":1}],"events":[{"type":"reboot"}]}]}',
    ) as { agent?: unknown; reports: { metrics: unknown[]; events: unknown[] }[] };
    const sampleBefore = input.reports[0]?.metrics[0];
    const result = parseAgentBody(input);
    assert.equal(result, input);
    assert.equal(result.reports[0]?.metrics[0], sampleBefore, 'no object per sample');
    assert.deepEqual(result.agent, {});
    assert.deepEqual(result.reports[0]?.events, [{ type: 'reboot', severity: 'INFO', message: '' }]);
  });

  it('drops what the schema drops: a valid body with an unknown key comes back without it', () => {
    const input = {
      reports: [{ ts: '2026-11-28T10:00:00Z', metrics: [{ name: 'a.b', value: 1, unit: '%' }] }],
    };
    assert.deepEqual(parseAgentBody(input).reports[0]?.metrics, [{ name: 'a.b', value: 1 }]);
  });

  it('refuses beyond the limits as the schema does (reports, samples, events and containers a report)', () => {
    const ts = '2026-11-28T10:00:00Z';
    const samples = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `m.${i}`, value: i }));
    const events = (n: number) => Array.from({ length: n }, () => ({ type: 'x' }));
    const containers = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `c${i}`, image: 'app:1' }));
    const cases = [
      { reports: Array.from({ length: MAX_REPORTS }, () => ({ ts, metrics: [] })) },
      { reports: Array.from({ length: MAX_REPORTS + 1 }, () => ({ ts, metrics: [] })) },
      { reports: [{ ts, metrics: samples(MAX_METRICS_PER_REPORT) }] },
      { reports: [{ ts, metrics: samples(MAX_METRICS_PER_REPORT + 1) }] },
      { reports: [{ ts, metrics: [], events: events(MAX_EVENTS_PER_REPORT) }] },
      { reports: [{ ts, metrics: [], events: events(MAX_EVENTS_PER_REPORT + 1) }] },
      { reports: [{ ts, metrics: [], containers: containers(MAX_CONTAINERS_PER_REPORT) }] },
      { reports: [{ ts, metrics: [], containers: containers(MAX_CONTAINERS_PER_REPORT + 1) }] },
      { reports: [{ ts, metrics: [], containers: [{ name: 'web', image: 'i'.repeat(MAX_IMAGE_LENGTH) }] }] },
      { reports: [{ ts, metrics: [], containers: [{ name: 'web', image: 'i'.repeat(MAX_IMAGE_LENGTH + 1) }] }] },
    ];
    for (const [index, input] of cases.entries()) {
      const expected = bySchema(structuredClone(input));
      assert.deepStrictEqual(byHand(structuredClone(input)), expected);
      assert.equal('data' in expected, index % 2 === 0, `case ${index}`);
    }
  });
});
