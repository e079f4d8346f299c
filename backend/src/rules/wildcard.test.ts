/**
 * Instance globs and event message patterns: their meaning, and that a near
 * miss costs at most pattern × text steps. (They were backtracking RegExps:
 * `*a*a*a*a*a*a*a*b` against 60 × "a" took 36 s and blocked the process — an
 * operator's rule or the rule preview could stall evaluation, ingest and live.)
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { instanceMatches, wildcardMatches } from './condition.js';
import { messageMatches } from '../evaluation/event-rules.js';

describe('wildcard matching', () => {
  it('reads `*` as any run, `?` as one character, the rest literally, over the whole text', () => {
    const table: [string, string, boolean][] = [
      ['', '', true],
      ['', 'a', false],
      ['*', '', true],
      ['*', 'anything', true],
      ['/var', '/var', true],
      ['/var', '/var/log', false],
      ['/var*', '/var/log', true],
      ['*/log', '/var/log', true],
      ['eth?', 'eth0', true],
      ['eth?', 'eth10', false],
      ['e*h*1', 'eth1', true],
      ['a*b*c', 'abxbc', true],
      ['a*b*c', 'abxbd', false],
      ['*.*', 'a.b', true],
      ['[a]', '[a]', true],
      ['(.+)', 'xyz', false],
      ['**a', 'ba', true],
    ];
    for (const [pattern, text, expected] of table)
      assert.equal(wildcardMatches(pattern, text), expected, `${pattern} ~ ${text}`);
    assert.equal(instanceMatches(null, 'x'), true);
    assert.equal(instanceMatches('', 'x'), true);
    assert.equal(instanceMatches('sd?', 'sda'), true);
  });

  it('matches a message pattern anywhere in the message, case-insensitively', () => {
    assert.equal(messageMatches(null, 'x'), true);
    assert.equal(messageMatches('nginx', 'NGINX.service failed'), true);
    assert.equal(messageMatches('ng*fail', 'nginx.service failed'), true);
    assert.equal(messageMatches('ng?nx', 'nginx'), true);
    assert.equal(messageMatches('apache', 'nginx.service failed'), false);
    assert.equal(messageMatches('a.b', 'axb'), false);
  });

  it('answers a near miss quickly, however many `*` the pattern holds', () => {
    // sizes the old RegExps took ~0.4 s and ~1.1 s for (checked first, so they fail rather than hang)
    let started = performance.now();
    assert.equal(instanceMatches('*a'.repeat(7) + '*b', 'a'.repeat(36)), false);
    assert.equal(messageMatches('a*'.repeat(7) + 'b', 'a'.repeat(40)), false);
    let elapsed = performance.now() - started;
    assert.ok(elapsed < 100, `${elapsed.toFixed(0)} ms`);
    // the longest glob and a long message
    started = performance.now();
    assert.equal(instanceMatches('*a'.repeat(60) + '*b', 'a'.repeat(128)), false);
    assert.equal(messageMatches('a*'.repeat(90) + 'b', 'a'.repeat(4000)), false);
    elapsed = performance.now() - started;
    assert.ok(elapsed < 200, `${elapsed.toFixed(0)} ms`);
  });
});
