/**
 * Request bodies of the console API: JSON or a form, small. (The agent
 * webhook parses its own gzip bodies of up to 4 MiB.)
 */
import { koaBody } from 'koa-body';
import type { Middleware } from 'koa';

export function parseBodies(): Middleware {
  return koaBody({
    json: true,
    urlencoded: true,
    text: false,
    multipart: false,
    jsonLimit: '256kb',
    formLimit: '64kb',
  }) as Middleware;
}
