import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { systemClock } from '../lib/clock.js';
import { captureLogger } from '../testing/logger.js';
import { yamlString } from './config-file.js';
import { createAgentDist } from './dist.js';
import { renderInstallScript, shQuote } from './install-script.js';
import { archSpellings, compareVersions, normaliseArch } from './versions.js';

describe('agent versions, architectures and quoting', () => {
  it('orders versions by semver precedence, not as text', () => {
    const sorted = ['2.10.0', '2.9.1', '2.28.1', '2.28.1-rc.2', '2.28.1-rc.10', '2.4.2', '10.0.0', '2.28.1-alpha'];
    sorted.sort(compareVersions);
    assert.deepEqual(sorted, [
      '2.4.2',
      '2.9.1',
      '2.10.0',
      '2.28.1-alpha',
      '2.28.1-rc.2',
      '2.28.1-rc.10',
      '2.28.1',
      '10.0.0',
    ]);
    assert.equal(compareVersions('2.28.1+build.7', '2.28.1'), 0);
    assert.ok(compareVersions('garbage', '0.0.1') < 0, 'a version that is not semver ranks below every release');
  });

  it('maps the architecture names agents and uname report to build names', () => {
    assert.equal(normaliseArch('amd64'), 'x86_64');
    assert.equal(normaliseArch('ARM64'), 'aarch64');
    assert.equal(normaliseArch('riscv64'), 'riscv64');
    assert.deepEqual(archSpellings('arm64'), ['aarch64', 'arm64']);
  });

  it('quotes YAML and sh values so nothing breaks out of them', () => {
    assert.equal(yamlString('a"b\\c'), '"a\\"b\\\\c"');
    assert.equal(yamlString('line\nnext\u2028é'), '"line\\u000anext\\u2028\\u00e9"');
    assert.equal(yamlString('😀'), '"\\U0001f600"');
    assert.equal(shQuote("it's $(x)"), "'it'\\''s $(x)'");
  });

  it('warns once when neither PUBLIC_URL nor AUTH_URL is set, and the installer then stops with a message', () => {
    const logs = captureLogger();
    const dist = createAgentDist({ dir: '/nonexistent', publicUrl: '', clock: systemClock, log: logs.log });
    const build = { version: '2.28.1', arch: 'x86_64', sha256: 'a'.repeat(64), size: 1, file: '/nonexistent/x' };
    assert.equal(dist.offer(build).url, '/api/agent/download/2.28.1/x86_64');
    assert.equal(dist.publicBase(), '');
    assert.equal(logs.messages().filter((message) => message.startsWith('PUBLIC_URL and AUTH_URL')).length, 1);
    const script = renderInstallScript({ base: dist.publicBase(), key: 'k'.repeat(32) });
    assert.match(script, /^ARGUS_URL=''$/m);
    assert.match(script, /\[ -n "\$ARGUS_URL" \] \|\| fail/);
  });
});
