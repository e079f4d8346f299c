/**
 * The TCP, DNS and ping probes. TCP and ping reach the target through the run's network (the
 * server's: under its outbound address policy, every address of the name checked, and for TCP the
 * connected one again); a DNS check's chosen resolver is checked the same way (the name asked
 * about is only asked, never connected to).
 *
 * Ping is iputils `ping`, which opens an ICMP datagram socket where net.ipv4.ping_group_range
 * admits the process's group (Docker sets it for every container) and falls back to its raw
 * socket capability elsewhere (docs/decisions.md "Network checks").
 */
import { execFile } from 'node:child_process';
import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { z } from 'zod';
import type { dnsSettings, pingSettings, tcpSettings } from '../contracts/checks.js';
import { CheckFailure, failed, failureReason, type ProbeContext, type ProbeOutcome } from './outcome.js';

const ok = (responseMs: number, extra: Partial<ProbeOutcome> = {}): ProbeOutcome => ({
  ...failed(''),
  ...extra,
  up: true,
  reason: null,
  responseMs,
});

export async function probeTcp(settings: z.infer<typeof tcpSettings>, ctx: ProbeContext): Promise<ProbeOutcome> {
  const started = performance.now();
  try {
    const socket = await ctx.network.connect(settings.host, settings.port, ctx.signal);
    const responseMs = Math.round(performance.now() - started);
    socket.destroy();
    return ok(responseMs);
  } catch (error) {
    return failed(failureReason(error, ctx.timeoutMs, ctx.signal));
  }
}

/** "address", "address:port", "[v6]:port" → the address alone. */
export function resolverAddress(server: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(server);
  if (bracketed) return bracketed[1] as string;
  return server.split(':').length === 2 ? (server.split(':')[0] as string) : server;
}

/** An answer record as text, the way `expected` is compared with it. */
function recordTexts(answer: unknown): string[] {
  if (typeof answer === 'string') return [answer];
  if (Array.isArray(answer)) return [answer.join('')]; // a TXT record's chunks
  if (answer && typeof answer === 'object') return Object.values(answer).map(String);
  return [];
}

const bare = (text: string) => text.trim().toLowerCase().replace(/\.$/, '');

export async function probeDns(settings: z.infer<typeof dnsSettings>, ctx: ProbeContext): Promise<ProbeOutcome> {
  const resolver = new Resolver({ timeout: ctx.timeoutMs, tries: 1 });
  if (settings.server) {
    const address = resolverAddress(settings.server);
    if (!isIP(address)) return failed('resolver: not an IP address');
    const refusal = ctx.network.resolverRefusal(address);
    if (refusal) return failed(failureReason(refusal, ctx.timeoutMs, ctx.signal));
    try {
      resolver.setServers([settings.server]);
    } catch {
      return failed('resolver: not an IP address');
    }
  }
  const cancel = () => resolver.cancel();
  ctx.signal.addEventListener('abort', cancel, { once: true });
  const started = performance.now();
  try {
    const answers = (await resolver.resolve(settings.name, settings.recordType)) as unknown[];
    const responseMs = Math.round(performance.now() - started);
    if (settings.expected === undefined || settings.expected === '') return ok(responseMs);
    const expected = bare(settings.expected);
    const found = answers.flatMap(recordTexts).some((text) => bare(text) === expected);
    return found ? ok(responseMs) : failed('expected answer missing', { responseMs });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ENODATA') return failed(`no ${settings.recordType} record`);
    if (code === 'ENOTFOUND') return failed('name does not exist');
    if (code === 'ETIMEOUT' || code === 'ECANCELLED') return failed(`no answer within ${ctx.timeoutMs / 1000} s`);
    if (code === 'ECONNREFUSED') return failed('resolver refused the connection');
    return failed(code ? `resolver error ${code}` : 'resolver error');
  } finally {
    ctx.signal.removeEventListener('abort', cancel);
  }
}

/** What `ping -q` prints at the end: sent, received, and the average round trip. */
export function parsePing(output: string): { sent: number; received: number; avgMs: number | null } | null {
  const counts = /(\d+) packets transmitted, (\d+) (?:packets )?received/.exec(output);
  if (!counts) return null;
  const rtt = /= [\d.]+\/([\d.]+)\//.exec(output);
  return { sent: Number(counts[1]), received: Number(counts[2]), avgMs: rtt ? Number(rtt[1]) : null };
}

export async function probePing(settings: z.infer<typeof pingSettings>, ctx: ProbeContext): Promise<ProbeOutcome> {
  let address: string;
  try {
    [address] = (await ctx.network.resolve(settings.host)) as [string];
  } catch (error) {
    return failed(failureReason(error, ctx.timeoutMs, ctx.signal));
  }
  const deadline = Math.max(1, Math.floor(ctx.timeoutMs / 1000));
  // the address resolved and checked above, never the name: ping would resolve it again
  const args = ['-n', '-q', '-c', String(settings.count), '-i', '0.2', '-w', String(deadline), address];
  const output = await new Promise<string | CheckFailure>((resolve) => {
    // ping stops itself at its deadline (-w, the run's timeout) and then prints the loss; killing it
    // when the run's timer fires at the same instant would lose that summary, so only a ping that
    // outlives its own deadline is killed
    execFile('ping', args, { timeout: ctx.timeoutMs + 1000 }, (error, stdout) => {
      if (error && (error as { code?: unknown }).code === 'ENOENT') resolve(new CheckFailure('ping is not installed'));
      else resolve(stdout);
    });
  });
  if (output instanceof CheckFailure) return failed(output.message);
  const parsed = parsePing(output);
  if (!parsed) return failed(ctx.signal.aborted ? `no answer within ${deadline} s` : 'ping failed');
  const packetLossPct = parsed.sent ? Math.round(((parsed.sent - parsed.received) / parsed.sent) * 1000) / 10 : 100;
  if (parsed.received === 0) return failed('no reply', { packetLossPct });
  return ok(Math.round((parsed.avgMs ?? 0) * 10) / 10, { packetLossPct });
}
