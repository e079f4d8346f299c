import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sha256 } from '../lib/crypto.js';
import { canonicalJson, createSettingsRevisions } from './settings-revision.js';

/** Settings whose one value counts how often it is read: a revision made again reads it again. */
function countedSettings(interval: string) {
  const settings = {
    reads: 0,
    get interval() {
      settings.reads++;
      return interval;
    },
  };
  return settings;
}
const hashOf = (value: unknown) => sha256(canonicalJson(value));

describe('settings revisions', () => {
  it('hashes the settings alone without checks, and the settings with their checks otherwise', () => {
    const revisionOf = createSettingsRevisions();
    const settings = { b: '2', a: '1' };
    assert.equal(revisionOf(settings, []), sha256('{"a":"1","b":"2"}'));
    const check = { id: 7, settings: { type: 'ping', host: 'db' } };
    assert.equal(revisionOf(settings, [check]), hashOf({ settings, checks: [check] }));
  });

  it('makes the revision of an agent with checks once while its settings and check objects stay the same', () => {
    const revisionOf = createSettingsRevisions();
    const settings = countedSettings('30s');
    const checks = [{ id: 1 }, { id: 2 }];
    const first = revisionOf(settings, [...checks]);
    const readsAfterFirst = settings.reads;
    // each report gets a new list of the same check objects, as the checks' cache hands them out
    assert.equal(revisionOf(settings, [...checks]), first);
    assert.equal(revisionOf(settings, [...checks]), first);
    assert.equal(settings.reads, readsAfterFirst, 'not hashed again');
  });

  it('makes the revision of an agent without checks once per settings object', () => {
    const revisionOf = createSettingsRevisions();
    const settings = countedSettings('30s');
    const first = revisionOf(settings, []);
    const readsAfterFirst = settings.reads;
    assert.equal(revisionOf(settings, []), first);
    assert.equal(settings.reads, readsAfterFirst, 'not hashed again');
  });

  it('makes a new revision when a check is changed, added, removed or reordered, or the settings change', () => {
    const revisionOf = createSettingsRevisions();
    const settings = { interval: '30s' };
    const one = { id: 1, intervalSeconds: 60 };
    const two = { id: 2, intervalSeconds: 60 };
    const base = revisionOf(settings, [one, two]);
    const changed = { id: 1, intervalSeconds: 30 }; // a reload makes a new object for a changed check
    assert.equal(revisionOf(settings, [changed, two]), hashOf({ settings, checks: [changed, two] }));
    assert.notEqual(revisionOf(settings, [changed, two]), base);
    assert.equal(revisionOf(settings, [one]), hashOf({ settings, checks: [one] }));
    assert.equal(revisionOf(settings, [two, one]), hashOf({ settings, checks: [two, one] }));
    assert.equal(revisionOf(settings, []), hashOf(settings));
    const newSettings = { interval: '10s' };
    assert.equal(revisionOf(newSettings, [one, two]), hashOf({ settings: newSettings, checks: [one, two] }));
  });
});
