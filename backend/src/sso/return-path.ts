/**
 * Where the browser goes after signing in: only a path on this site. Anything that could leave it —
 * another scheme or host, `//host` (scheme-relative), `/\host` (browsers read `\` as `/`), control
 * characters — is refused, so the sign-in cannot be used as an open redirect.
 */
import { Invalid } from '../lib/errors.js';

const BASE = 'http://argus.invalid';

export function sameSitePath(returnTo: string | undefined): string {
  if (returnTo === undefined || returnTo === '') return '/';
  const refuse = () =>
    new Invalid('returnTo: only a path on this site, starting with a single "/", is accepted', { field: 'returnTo' });
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (returnTo.length > 2000 || !returnTo.startsWith('/') || /[\\\u0000-\u001f\u007f]/.test(returnTo)) throw refuse();
  if (returnTo.startsWith('//')) throw refuse();
  const url = new URL(returnTo, BASE);
  if (url.origin !== BASE) throw refuse();
  // the API is not a page: a return to it would only show JSON (or start another sign-in)
  if (url.pathname.startsWith('/api/')) throw refuse();
  return `${url.pathname}${url.search}${url.hash}`;
}
