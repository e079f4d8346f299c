import type { Middleware } from 'koa';

/**
 * Whether every cookie is `Secure` follows AUTH_URL's scheme, not the hop to the app: behind a TLS
 * proxy the app sees plain HTTP (`proxy: false`), and the cookies library refuses to set a Secure
 * cookie on what it takes for an unencrypted request (sign-in answered 500). Setting its `secure`
 * override on every request makes `Secure` the default of every cookie, present and future.
 */
export function cookieTransport(authUrl: string): Middleware {
  const secure = isHttps(authUrl);
  return async (ctx, next) => {
    ctx.cookies.secure = secure;
    await next();
  };
}

export function isHttps(url: string): boolean {
  return url.startsWith('https://');
}
