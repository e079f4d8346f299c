/**
 * Script checks on the alert path, on the evaluation harness's fake clock: the states the ingest
 * records (script_checks) and their series raise alerts with the check's message and the severity of
 * the rule of their state, UNKNOWN at the severity an admin set; OK resolves. And what the ingest
 * writes: a newer report's checks, never an older one's, nothing when nothing changed, and a check a
 * newer report no longer names is gone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AgentReport } from '../../../contracts/agent-report.js';
import { ensureScriptRules } from '../../../db/seed-rules.js';
import { createScriptChecksRepo } from '../ingest/script-checks-repo.js';
import { createScriptChecksRecorder } from '../ingest/script-checks.js';
import { MINUTE, startEvaluationHarness, type EvaluationHarness } from '../testing/evaluation-harness.js';

describe('script checks on the alert path', () => {
  let h: EvaluationHarness;
  before(async () => {
    h = await startEvaluationHarness();
    assert.equal(await ensureScriptRules(h.knex), 3);
  });
  after(async () => {
    await h.close();
  });

  const report = (at: Date, checks: AgentReport['scripts']): AgentReport => ({
    ts: at.toISOString(),
    metrics: [],
    scripts: checks,
  });
  const check = (name: string, state: 'OK' | 'WARNING' | 'CRITICAL' | 'UNKNOWN', message: string, ran: Date) => ({
    name,
    state,
    message,
    ran: ran.toISOString(),
  });
  const stored = (systemId: number) =>
    h
      .knex('script_checks')
      .where({ system_id: systemId })
      .orderBy('name')
      .select('name', 'state', 'message', 'reported_at');

  it('raises with the check message and the severity of its state, UNKNOWN at the setting; OK resolves', async () => {
    const recorder = createScriptChecksRecorder(createScriptChecksRepo(h.knex));
    const { id } = await h.system();
    const now = h.clock.now();
    await recorder.record(id, [
      report(now, [
        check('backup', 'CRITICAL', 'CRITICAL - last backup 30 h ago', now),
        check('queue', 'UNKNOWN', 'timed out after 10 s', now),
        check('load', 'WARNING', 'WARNING - load 3.20', now),
      ]),
    ]);
    // UNKNOWN's severity is its rule's: the admin made it CRITICAL
    await h
      .knex('alert_rules')
      .where({ key: 'script.unknown' })
      .whereNull('scope_type')
      .update({ severity: 'CRITICAL' });
    await h.report(id, [
      { name: 'script.state', instance: 'backup', value: 2 },
      { name: 'script.state', instance: 'queue', value: 3 },
      { name: 'script.state', instance: 'load', value: 1 },
    ]);
    await h.run();
    const open = (await h.openAlerts(id)).map((a) => [a.rule_key, a.instance, a.severity, a.message]);
    assert.deepEqual(
      open.sort((a, b) => String(a[1]).localeCompare(String(b[1]))),
      [
        ['script.critical', 'backup', 'CRITICAL', 'Script check backup is CRITICAL: CRITICAL - last backup 30 h ago'],
        ['script.warning', 'load', 'WARNING', 'Script check load is WARNING: WARNING - load 3.20'],
        ['script.unknown', 'queue', 'CRITICAL', 'Script check queue is UNKNOWN: timed out after 10 s'],
      ],
    );

    h.clock.advance(MINUTE);
    await h.report(id, [
      { name: 'script.state', instance: 'backup', value: 0 },
      { name: 'script.state', instance: 'queue', value: 3 },
      { name: 'script.state', instance: 'load', value: 1 },
    ]);
    await h.run();
    assert.deepEqual(
      (await h.openAlerts(id)).map((a) => a.instance).sort(),
      ['load', 'queue'],
      'backup OK again: resolved',
    );
  });

  it('writes the newest report of checks only, only when it says something new, and drops a check no longer named', async () => {
    const recorder = createScriptChecksRecorder(createScriptChecksRepo(h.knex));
    const { id } = await h.system();
    const t0 = h.clock.now();
    const at = (minutes: number) => new Date(t0.getTime() + minutes * MINUTE);
    await recorder.record(id, [
      report(at(1), [check('a', 'OK', 'fine', at(1)), check('b', 'WARNING', 'hm', at(1))]),
      report(at(0), [check('a', 'CRITICAL', 'older', at(0))]),
    ]);
    assert.deepEqual(
      (await stored(id)).map((r) => [r.name, r.state, r.message]),
      [
        ['a', 'OK', 'fine'],
        ['b', 'WARNING', 'hm'],
      ],
      'the newest report of the request',
    );
    // a replayed older report arrives later: it does not overwrite
    await recorder.record(id, [report(at(0), [check('a', 'CRITICAL', 'older', at(0))])]);
    assert.equal((await stored(id))[0]?.state, 'OK');
    assert.equal((await stored(id)).length, 2, 'nor does it drop what it does not name');
    // the same results again in a newer report: nothing written
    await recorder.record(id, [report(at(2), [check('a', 'OK', 'fine', at(1)), check('b', 'WARNING', 'hm', at(1))])]);
    assert.equal((await stored(id))[0]?.reported_at.getTime(), at(1).getTime());
    // b's file removed: the next report names only a
    await recorder.record(id, [report(at(3), [check('a', 'OK', 'fine again', at(3))])]);
    assert.deepEqual(
      (await stored(id)).map((r) => [r.name, r.message]),
      [['a', 'fine again']],
    );
    // after a restart the recorder knows nothing written: the table keeps a's newer row from a late older report
    const restarted = createScriptChecksRecorder(createScriptChecksRepo(h.knex));
    await restarted.record(id, [report(at(0), [check('a', 'CRITICAL', 'older', at(0))])]);
    assert.deepEqual(
      (await stored(id)).map((r) => [r.name, r.message]),
      [['a', 'fine again']],
    );
  });
});
