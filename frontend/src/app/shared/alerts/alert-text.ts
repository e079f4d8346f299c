import { durationText } from '@contracts/metric-catalogue';
import { INSTANT_IN_TEXT } from '@contracts/zoned-time';

import { timeAgo } from '@console/ui/time-ago';

/** "10:14" today in `timeZone`, else "27 Nov, 10:14": a time the customer reads on their own clock. */
export function zonedTime(at: string, timeZone: string, now: number): string {
  const sameDay = (date: number) =>
    new Intl.DateTimeFormat('en-GB', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(date);
  const time = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit' }).format(
    Date.parse(at),
  );
  if (sameDay(Date.parse(at)) === sameDay(now)) return time;
  const day = new Intl.DateTimeFormat('en-GB', { timeZone, day: 'numeric', month: 'short' }).format(Date.parse(at));
  return `${day}, ${time}`;
}

/**
 * An alert's text as a person reads it: the exact instants the server wrote in it become times in
 * the customer's zone with how long ago ("No report since 10:14 (12 min ago)").
 */
export function alertText(message: string, timeZone: string, now: number): string {
  return message.replace(INSTANT_IN_TEXT, (at) => `${zonedTime(at, timeZone, now)} (${timeAgo(at, now)})`);
}

/** How long a resolved alert was open ("lasted 12 min"); null while it is open. */
export function alertDuration(startedAt: string, resolvedAt: string | null): string | null {
  if (!resolvedAt) return null;
  return durationText((Date.parse(resolvedAt) - Date.parse(startedAt)) / 1000);
}
