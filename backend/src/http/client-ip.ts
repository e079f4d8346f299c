/**
 * The client address every rate limit keys on: the LAST entry of
 * X-Forwarded-For (the one our own proxy appended; earlier entries are the
 * client's word), else the socket address. Garbage never throws.
 */
import { isIP } from 'node:net';

function normalise(candidate: string): string | null {
  let value = candidate.trim();
  if (value === '') return null;
  // [v6]:port or [v6]
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed?.[1]) value = bracketed[1];
  // v4:port
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(value);
  if (v4WithPort?.[1]) value = v4WithPort[1];
  if (isIP(value) === 0) return null;
  // IPv4-mapped IPv6 is the same client as the plain IPv4 address
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(value);
  return (mapped?.[1] ?? value).toLowerCase();
}

export function clientAddress(forwardedFor: string | string[] | undefined, socketAddress: string | undefined): string {
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor;
  if (header) {
    const last = header.split(',').pop();
    const parsed = last === undefined ? null : normalise(last);
    if (parsed) return parsed;
  }
  return (socketAddress && normalise(socketAddress)) || 'unknown';
}

declare module 'koa' {
  interface DefaultState {
    /** Client address for rate limits: last X-Forwarded-For entry, else the socket. */
    clientIp: string;
  }
}
