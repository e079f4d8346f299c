/**
 * The probes against real servers on loopback: HTTP and HTTPS (a test CA's certificate expiring in
 * 5 days, a self-signed one), slow and hanging-up answers, redirects (to a closed port, to a cloud
 * metadata address, to another origin), a TCP listener, dnsmasq answering a test zone, and ping.
 * The address policy is the server's: loopback allowed only where the test opts in, as
 * ARGUS_ALLOW_PRIVATE_CHECKS does.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import type { CheckSettings } from '../../../contracts/checks.js';
import { httpSettings } from '../../../contracts/checks.js';
import {
  closedPort,
  makeCertificates,
  startDnsmasq,
  startHttp,
  startHttps,
  startTcp,
  type Listening,
  type TestCertificates,
} from '../testing/check-targets.js';
import { checksPolicy } from './policy.js';
import { runProbe, type ProbeResult } from '../../../probes/probe.js';
import { policyNetwork } from './network.js';

const OPEN = checksPolicy(true);
const STRICT = checksPolicy(false);

function probe(
  settings: CheckSettings,
  options: {
    policy?: typeof OPEN;
    timeoutMs?: number;
    maxResponseMs?: number | null;
    headers?: Record<string, string>;
  } = {},
): Promise<ProbeResult> {
  return runProbe(
    {
      settings,
      headers: options.headers ?? {},
      timeoutMs: options.timeoutMs ?? 3000,
      maxResponseMs: options.maxResponseMs ?? null,
    },
    policyNetwork(options.policy ?? OPEN),
    () => new Date(),
  );
}
const web = (url: string, extra: Partial<CheckSettings & { type: 'http' }> = {}) =>
  httpSettings.parse({ type: 'http', url, ...extra });

describe('network check probes', () => {
  let certs: TestCertificates;
  let site: Listening;
  let leaf: Listening;
  let self: Listening;
  let tcp: Listening;
  let dns: { port: number; stop(): void };
  before(async () => {
    certs = makeCertificates();
    site = await startHttp();
    leaf = await startHttps(certs.leaf);
    self = await startHttps(certs.selfSigned);
    tcp = await startTcp();
    dns = await startDnsmasq();
  });
  after(async () => {
    await Promise.all([site.close(), leaf.close(), self.close(), tcp.close()]);
    dns.stop();
    certs.remove();
  });

  it('HTTP: status, timing and the keyword, never the body', async () => {
    const result = await probe(web(`http://127.0.0.1:${site.port}/`, { keyword: 'welcome to the shop' }));
    assert.equal(result.up, true, result.reason ?? '');
    assert.equal(result.status, 200);
    assert.equal(result.keywordMatched, true);
    assert.ok(result.responseMs !== null && result.responseMs >= 0);
    assert.ok(!JSON.stringify(result).includes('shop'), 'the body is never part of a result');

    const regex = await probe(
      web(`http://127.0.0.1:${site.port}/`, { keyword: 'welcome\\s+to', keywordIsRegex: true }),
    );
    assert.equal(regex.up, true);
    const absent = await probe(web(`http://127.0.0.1:${site.port}/`, { keyword: 'welcome', keywordAbsent: true }));
    assert.deepEqual([absent.up, absent.reason], [false, 'keyword present']);
    const missing = await probe(web(`http://127.0.0.1:${site.port}/`, { keyword: 'out of stock' }));
    assert.deepEqual([missing.up, missing.reason, missing.keywordMatched], [false, 'keyword missing', false]);
  });

  it('HTTP: an unexpected status is down, an expected one up', async () => {
    const down = await probe(web(`http://127.0.0.1:${site.port}/missing`));
    assert.deepEqual([down.up, down.reason, down.status], [false, 'status 404', 404]);
    const up = await probe(web(`http://127.0.0.1:${site.port}/missing`, { expectedStatuses: '200-299,404' }));
    assert.equal(up.up, true);
  });

  it('HTTP: slow is DEGRADED-slow within the timeout, down beyond it', async () => {
    const slow = await probe(web(`http://127.0.0.1:${site.port}/slow`, { keyword: 'finally' }), { maxResponseMs: 500 });
    assert.deepEqual([slow.up, slow.slow], [true, true]);
    assert.ok((slow.responseMs ?? 0) >= 1400, String(slow.responseMs));
    const timedOut = await probe(web(`http://127.0.0.1:${site.port}/slow`), { timeoutMs: 1000 });
    assert.deepEqual([timedOut.up, timedOut.reason], [false, 'no answer within 1 s']);
  });

  it('HTTP: a server that hangs up, and a closed port', async () => {
    const closed = await probe(web(`http://127.0.0.1:${site.port}/close`));
    assert.deepEqual([closed.up, closed.reason], [false, 'connection closed']);
    const refused = await probe(web(`http://127.0.0.1:${await closedPort()}/`));
    assert.deepEqual([refused.up, refused.reason], [false, 'connection refused']);
  });

  it('HTTP: redirects are followed hop by hop, or not at all', async () => {
    const target = encodeURIComponent(`http://127.0.0.1:${site.port}/`);
    const followed = await probe(web(`http://127.0.0.1:${site.port}/to/${target}`, { keyword: 'welcome' }));
    assert.deepEqual([followed.up, followed.status], [true, 200]);
    const notFollowed = await probe(web(`http://127.0.0.1:${site.port}/to/${target}`, { followRedirects: false }));
    assert.deepEqual([notFollowed.up, notFollowed.status], [false, 302]);
    const toClosed = encodeURIComponent(`http://127.0.0.1:${await closedPort()}/`);
    const refused = await probe(web(`http://127.0.0.1:${site.port}/to/${toClosed}`));
    assert.deepEqual([refused.up, refused.reason], [false, 'connection refused']);
  });

  it("HTTP: the check's headers go to its own origin only", async () => {
    const headers = { 'x-token': 's3cret' };
    const own = await probe(web(`http://127.0.0.1:${site.port}/token`, { keyword: 'token=s3cret' }), { headers });
    assert.equal(own.up, true);
    // localhost is another origin than 127.0.0.1: the redirect there does not carry the header
    const elsewhere = encodeURIComponent(`http://localhost:${site.port}/token`);
    const moved = await probe(web(`http://127.0.0.1:${site.port}/to/${elsewhere}`, { keyword: 'token=none' }), {
      headers,
    });
    assert.equal(moved.up, true, moved.reason ?? '');
  });

  it('HTTPS: a certificate expiring in 5 days from an untrusted CA, verification on and off', async () => {
    const verified = await probe(web(`https://localhost:${leaf.port}/`));
    assert.equal(verified.up, false);
    assert.match(verified.reason ?? '', /^certificate does not verify \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)$/);
    assert.ok(verified.certDaysLeft !== null && verified.certDaysLeft >= 4.9 && verified.certDaysLeft <= 5);
    const unverified = await probe(web(`https://localhost:${leaf.port}/`, { verifyTls: false, keyword: 'welcome' }));
    assert.deepEqual([unverified.up, unverified.certValid, unverified.status], [true, false, 200]);
    assert.ok(unverified.certDaysLeft !== null && unverified.certDaysLeft >= 4.9 && unverified.certDaysLeft <= 5);
  });

  it('HTTPS: a self-signed certificate', async () => {
    const verified = await probe(web(`https://127.0.0.1:${self.port}/`));
    assert.deepEqual(
      [verified.up, verified.reason],
      [false, 'certificate does not verify (DEPTH_ZERO_SELF_SIGNED_CERT)'],
    );
    const unverified = await probe(web(`https://127.0.0.1:${self.port}/`, { verifyTls: false }));
    assert.deepEqual([unverified.up, unverified.certValid], [true, false]);
    assert.ok((unverified.certDaysLeft ?? 0) > 199);
  });

  it('TCP: connect time to a listener; a closed port is down', async () => {
    const up = await probe({ type: 'tcp', host: '127.0.0.1', port: tcp.port });
    assert.equal(up.up, true);
    assert.ok(up.responseMs !== null);
    const down = await probe({ type: 'tcp', host: '127.0.0.1', port: await closedPort() });
    assert.deepEqual([down.up, down.reason], [false, 'connection refused']);
  });

  it('DNS: dnsmasq answers the test zone; the expected answer, a missing record, a missing name', async () => {
    const server = `127.0.0.1:${dns.port}`;
    const a = await probe({ type: 'dns', name: 'shop.test', recordType: 'A', server, expected: '192.0.2.10' });
    assert.equal(a.up, true, a.reason ?? '');
    const mx = await probe({ type: 'dns', name: 'shop.test', recordType: 'MX', server, expected: 'mail.shop.test.' });
    assert.equal(mx.up, true, mx.reason ?? '');
    const wrong = await probe({ type: 'dns', name: 'shop.test', recordType: 'A', server, expected: '192.0.2.99' });
    assert.deepEqual([wrong.up, wrong.reason], [false, 'expected answer missing']);
    const none = await probe({ type: 'dns', name: 'nowhere.test', recordType: 'A', server });
    assert.equal(none.up, false);
    assert.equal(none.reason, 'name does not exist');
  });

  describe('ping', () => {
    // A network of the test's own: a veth pair whose one end holds 198.18.77.1/30, so 198.18.77.2
    // is asked for on a link where nobody answers and no packet leaves the machine.
    const link = `argus-p${process.pid % 100000}`;
    const setUp = [
      `ip link add ${link} type veth peer name ${link}b`,
      `ip addr add 198.18.77.1/30 dev ${link}`,
      `ip link set ${link}b up`,
      `ip link set ${link} up`,
    ];
    before(() => execFileSync('sh', ['-c', setUp.join(' && ')]));
    after(() => execFileSync('ip', ['link', 'del', link]));

    it('127.0.0.1 answers; an address nobody holds on the test network does not', async () => {
      const up = await probe({ type: 'ping', host: '127.0.0.1', count: 3 });
      assert.equal(up.up, true, up.reason ?? '');
      assert.equal(up.packetLossPct, 0);
      assert.ok(up.responseMs !== null && up.responseMs < 100);
      const down = await probe({ type: 'ping', host: '198.18.77.2', count: 2 }, { timeoutMs: 2000 });
      assert.deepEqual([down.up, down.reason, down.packetLossPct], [false, 'no reply', 100]);
    });
  });

  describe('the address policy (the server default: no private addresses)', () => {
    const refused = async (settings: CheckSettings, pattern: RegExp) => {
      const result = await probe(settings, { policy: STRICT });
      assert.equal(result.up, false);
      assert.match(result.reason ?? '', pattern);
    };

    it('refuses loopback in every spelling, and a name resolving to it', async () => {
      await refused(web(`http://127.0.0.1:${site.port}/`), /^refused by policy: 127\.0\.0\.1 is in 127\.0\.0\.0\/8/);
      await refused(web(`http://2130706433:${site.port}/`), /^refused by policy: 127\.0\.0\.1 is in 127\.0\.0\.0\/8/);
      await refused(
        web(`http://[::ffff:127.0.0.1]:${site.port}/`),
        /^refused by policy: ::ffff:7f00:1 carries 127\.0\.0\.1/,
      );
      await refused(web(`http://localhost:${site.port}/`), /^refused by policy: (127\.0\.0\.1|::1) is in/);
      await refused({ type: 'tcp', host: '0x7f.1', port: tcp.port }, /^refused by policy: 127\.0\.0\.1/);
      await refused({ type: 'ping', host: 'localhost', count: 1 }, /^refused by policy:/);
      await refused(
        { type: 'dns', name: 'shop.test', recordType: 'A', server: `127.0.0.1:${dns.port}` },
        /^refused by policy:/,
      );
    });

    it('refuses a redirect to a cloud metadata address, even where private addresses are allowed', async () => {
      const metadata = encodeURIComponent('http://169.254.169.254/latest/meta-data/');
      const result = await probe(web(`http://127.0.0.1:${site.port}/to/${metadata}`));
      assert.deepEqual(
        [result.up, result.reason, result.status],
        [false, 'refused by policy: 169.254.169.254 is a cloud metadata service', 302],
      );
      const mapped = await probe(web('http://[::ffff:169.254.169.254]/'));
      assert.match(mapped.reason ?? '', /^refused by policy: .* is a cloud metadata service$/);
    });
  });
});
