/**
 * Serves the built console with an SPA fallback: any GET outside /api that is
 * not a file gets index.html, so deep links like /systems/42 load the app.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Middleware } from 'koa';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
};

// Angular's build puts a content hash in asset names: those can be cached for a year
const HASHED = /-[A-Z0-9]{8,}\.(js|css|mjs)$/;

async function fileAt(root: string, requestPath: string): Promise<string | null> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(requestPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const candidate = path.resolve(root, '.' + path.posix.normalize('/' + decoded));
  if (candidate !== root && !candidate.startsWith(root + path.sep)) return null;
  try {
    return (await stat(candidate)).isFile() ? candidate : null;
  } catch {
    return null;
  }
}

export function serveConsole(directory: string): Middleware {
  const root = path.resolve(directory);
  const index = path.join(root, 'index.html');
  return async (ctx, next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || ctx.path === '/api' || ctx.path.startsWith('/api/')) {
      return next();
    }
    let file = await fileAt(root, ctx.path);
    if (!file) {
      // a missing asset is a 404; anything else is a client-side route
      if (path.extname(ctx.path) !== '') return next();
      file = (await fileAt(root, '/index.html')) ?? null;
      if (!file) {
        ctx.status = 503;
        ctx.type = 'text/plain';
        ctx.body = 'The console is not built: run `npm run build:frontend`.';
        return;
      }
    }
    const stats = await stat(file);
    ctx.type = TYPES[path.extname(file)] ?? 'application/octet-stream';
    ctx.set('Cache-Control', file !== index && HASHED.test(file) ? 'public, max-age=31536000, immutable' : 'no-cache');
    // no-cache files (index.html, the API page's 1.7 MB swagger-ui bundle) are revalidated on
    // every load: an unchanged one answers 304. An ETag, not Last-Modified, so that a rollback to
    // an older build (older mtimes) is still a change.
    ctx.status = 200;
    ctx.etag = `W/"${stats.size.toString(16)}-${Math.trunc(stats.mtimeMs).toString(16)}"`;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.body = ctx.method === 'HEAD' ? null : createReadStream(file);
    ctx.length = stats.size;
  };
}
