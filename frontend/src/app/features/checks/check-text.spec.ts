import { checkResultBody } from '@console/shared/checks/checks-testing';
import { checkTarget, intervalText, resultText } from './check-text';

describe('check texts', () => {
  it('names the target of each type in one line', () => {
    expect(checkTarget({ type: 'http', url: 'https://shop.example.com/', method: 'GET' })).toBe(
      'https://shop.example.com/',
    );
    expect(checkTarget({ type: 'http', url: 'https://api.example.com/', method: 'POST' })).toBe(
      'POST https://api.example.com/',
    );
    expect(checkTarget({ type: 'tcp', host: 'vpn.example.com', port: 1194 })).toBe('vpn.example.com:1194');
    expect(checkTarget({ type: 'ping', host: '192.0.2.1', count: 3 })).toBe('192.0.2.1');
    expect(checkTarget({ type: 'dns', name: 'example.com', recordType: 'MX', server: '192.0.2.53' })).toBe(
      'example.com (MX) at 192.0.2.53',
    );
  });

  it('says what a run measured, and why it failed, never more', () => {
    expect(resultText(null)).toBe('Not run yet');
    expect(resultText(checkResultBody({ keywordMatched: true, certDaysLeft: 80.6 }))).toBe(
      'HTTP 200 · 48 ms · keyword as expected · certificate 80 days',
    );
    expect(
      resultText(checkResultBody({ up: false, reason: 'connection refused', status: null, responseMs: null })),
    ).toBe('connection refused');
    expect(resultText(checkResultBody({ slow: true, responseMs: 1234.4 }))).toBe(
      'HTTP 200 · 1234 ms · slower than its limit',
    );
    expect(resultText(checkResultBody({ status: null, responseMs: 2.25, packetLossPct: 33 }))).toBe(
      '2.3 ms · 33 % loss',
    );
  });

  it('puts intervals in words', () => {
    expect([intervalText(30), intervalText(300), intervalText(3600)]).toEqual([
      'every 30 s',
      'every 5 min',
      'every 1 h',
    ]);
  });
});
