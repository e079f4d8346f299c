/**
 * GET /status/<slug>: the public, read-only status page. No sign-in and no cookie
 * (mounted before authentication: nothing here reads or writes one), `noindex`, a strict
 * Content-Security-Policy (no script at all, the one inline style by hash), rate-limited per client
 * address, and computed at most once per 30 s per slug however many ask (the answer is cached in
 * this process, a pending computation shared). An unknown slug and a revoked one get the same 404,
 * cached the same way, and the page is found by the slug's hash, never by the slug itself.
 */
import { gzipSync } from 'node:zlib';
import type { Context } from 'koa';
import { textParam, routeOf } from '../http/route.js';
import type { Clock } from '../lib/clock.js';
import { sha256 } from '../lib/crypto.js';
import type { Logger } from '../lib/logger.js';
import { sharedAnswers } from '../lib/shared-answers.js';
import type { RateLimiter } from '../ratelimit/rate-limiter.js';
import type { ReportsService } from '../reports/service.js';
import { publicView } from './public-view.js';
import { renderBusy, renderNotFound, renderStatusPage, renderUnavailable, STYLE_HASH } from './render.js';
import type { StatusPagesRepo } from './repo.js';
import { SLUG_PATTERN } from './service.js';

export const CACHE_MS = 30_000;
/** Days of availability bars. */
export const BAR_DAYS = 90;
/** Bounds the cache: random slugs (404s are cached too) must not grow it without end. */
const MAX_CACHED = 1000;

interface Answer {
  status: 200 | 404;
  html: Buffer;
  /** Compressed once per computation: a page of many entries is ~200 KB of bars, ~10 KB gzipped. */
  gzipped: Buffer;
}

const answer = (status: Answer['status'], html: string): Answer => {
  const bytes = Buffer.from(html, 'utf8');
  return { status, html: bytes, gzipped: gzipSync(bytes) };
};

export function createPublicStatusPages(deps: {
  repo: Pick<StatusPagesRepo, 'findPublished' | 'systemStates' | 'openIncidents'>;
  reports: Pick<ReportsService, 'daily'>;
  clock: Clock;
  limiter: RateLimiter;
  log: Logger;
}) {
  const { repo, reports, clock, limiter, log } = deps;
  const cache = sharedAnswers<Answer>({ clock, ttlMs: CACHE_MS, maxEntries: MAX_CACHED });
  const notFound = answer(404, renderNotFound());

  async function compute(slugHash: string): Promise<Answer> {
    const page = await repo.findPublished(slugHash);
    if (!page) return notFound;
    const [daily, systems, incidents] = await Promise.all([
      // the bars of the page's systems only: a customer's other hundreds cost nothing
      reports.daily(page.customerId, BAR_DAYS, (s) =>
        page.items.some((i) => (i.kind === 'system' ? i.id === s.id : i.id === s.clusterId)),
      ),
      repo.systemStates(page.customerId),
      repo.openIncidents(page.customerId),
    ]);
    if (!daily) return notFound;
    const days = new Map(daily.systems.map((s) => [s.id, s.days]));
    const view = publicView({
      page,
      now: clock.now().getTime(),
      timeZone: daily.timeZone,
      dates: daily.dates,
      windows: daily.windows,
      downtimeRules: daily.downtimeRules,
      incidents,
      systems: systems.flatMap((s) => {
        const ofSystem = days.get(s.id);
        return ofSystem ? [{ ...s, days: ofSystem }] : [];
      }),
    });
    return answer(200, renderStatusPage(view));
  }

  const answerFor = (slugHash: string): Promise<Answer> => cache.shared(slugHash, () => compute(slugHash));

  function send(ctx: Context, status: number, html: string | Answer, cacheControl: string): void {
    ctx.status = status;
    ctx.vary('Accept-Encoding');
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Cache-Control', cacheControl);
    ctx.set('X-Robots-Tag', 'noindex, nofollow');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set(
      'Content-Security-Policy',
      `default-src 'none'; style-src ${STYLE_HASH}; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    );
    if (typeof html === 'string') ctx.body = html;
    else if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
      ctx.set('Content-Encoding', 'gzip');
      ctx.body = html.gzipped;
    } else ctx.body = html.html; // Koa keeps the type set above for a Buffer body
  }

  return {
    /** Answers the page at `slug` on `ctx` (HTML with its own status and headers), limited per `address`. */
    async serve(ctx: Context, slug: string, address: string | null): Promise<void> {
      const limit = await limiter.consume(address ?? 'unknown');
      if (!limit.allowed) {
        ctx.set('Retry-After', String(limit.retryAfterSeconds));
        return send(ctx, 429, renderBusy(limit.retryAfterSeconds), 'no-store');
      }
      try {
        const found = SLUG_PATTERN.test(slug) ? await answerFor(sha256(slug)) : notFound;
        send(ctx, found.status, found, `public, max-age=${CACHE_MS / 1000}`);
      } catch (error) {
        log.error({ err: { message: (error as Error).message } }, 'Status page failed');
        send(ctx, 503, renderUnavailable(), 'no-store');
      }
    },
    /** After an edit, a rotation or a revocation: the next request computes afresh. */
    forget(slugHash: string): void {
      cache.forget(slugHash);
    },
  };
}

export type PublicStatusPages = ReturnType<typeof createPublicStatusPages>;

const route = routeOf<Pick<PublicStatusPages, 'serve'>>();

/** The public page itself: HTML, for people, listed in the API's document for completeness. */
export const publicStatusPageRoutes = [
  route({
    method: 'get',
    path: '/status/:slug',
    tag: 'Status pages',
    access: 'public',
    summary: 'A published status page (HTML, no sign-in, no cookies, noindex)',
    description:
      'Cached for 30 s (`Cache-Control: public, max-age=30`, and once per 30 s on the server), rate-limited ' +
      'per client address (429 with Retry-After, as HTML). An unknown or revoked address answers the same 404 page.',
    params: { slug: textParam },
    responses: {
      200: { description: 'The status page', contentType: 'text/html' },
      404: { description: 'No status page at this address (HTML)', contentType: 'text/html' },
      429: { description: 'Too many requests from this address; see Retry-After (HTML)', contentType: 'text/html' },
      503: { description: 'The page could not be computed just now (HTML)', contentType: 'text/html' },
    },
    handler: (pages, { params, address, ctx }) => pages.serve(ctx, params.slug, address),
  }),
];
