/**
 * A browser as far as a sign-in through an identity provider needs one: a cookie jar per origin,
 * redirects followed by hand, and the provider's sign-in and consent forms filled in. Real sockets,
 * real servers on both sides.
 */
export interface Step {
  status: number;
  url: string;
  location: string | null;
  text: string;
}

export class RedirectBrowser {
  private readonly jars = new Map<string, Map<string, string>>();

  private jar(url: string): Map<string, string> {
    const origin = new URL(url).origin;
    let jar = this.jars.get(origin);
    if (!jar) this.jars.set(origin, (jar = new Map()));
    return jar;
  }

  cookie(url: string, name: string): string | undefined {
    return this.jar(url).get(name);
  }

  /** The Cookie header this browser sends to `url`'s origin (for a socket opened beside it). */
  cookieHeader(url: string): string {
    return [...this.jar(url)].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  forget(url: string, name: string): void {
    this.jar(url).delete(name);
  }

  /** One request, no redirect followed; cookies kept (an expired or empty one dropped). */
  async fetch(
    url: string,
    init: { method?: string; form?: Record<string, string>; json?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Step> {
    const jar = this.jar(url);
    const headers: Record<string, string> = { ...init.headers };
    if (jar.size) headers['cookie'] = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    }
    if (init.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.json);
    }
    const response = await fetch(url, { method: init.method ?? 'GET', headers, body, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, ...rest] = (pair ?? '').split('=');
      if (!name) continue;
      const value = rest.join('=');
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) jar.delete(name.trim());
      else jar.set(name.trim(), value);
    }
    const location = response.headers.get('location');
    return {
      status: response.status,
      url,
      location: location === null ? null : new URL(location, url).toString(),
      text: await response.text(),
    };
  }

  /**
   * Follows redirects from `url`, signing in at the provider as `login` and consenting when its pages
   * ask, until the next request would go to `stopAt` (an origin + path prefix): that URL, not yet
   * requested. A page that is neither a redirect nor a form of the provider is thrown.
   */
  async until(url: string, login: string, stopAt: string): Promise<string> {
    let next: { url: string; method?: string; form?: Record<string, string> } = { url };
    for (let hop = 0; hop < 20; hop++) {
      if (hop > 0 && next.url.startsWith(stopAt)) return next.url;
      const step = await this.fetch(next.url, next);
      if (step.location) {
        next = { url: step.location };
        continue;
      }
      const action = /<form[^>]*action="([^"]+)"/.exec(step.text)?.[1];
      const prompt = /name="prompt" value="([a-z]+)"/.exec(step.text)?.[1];
      if (step.status === 200 && action && !prompt && /document\.forms\[0\]\.submit\(\)/.test(step.text)) {
        // a page that submits itself (the provider resuming a sign-in over its own session): its hidden fields
        const fields = [...step.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)];
        const form = Object.fromEntries(fields.map((field) => [field[1] as string, field[2] as string]));
        next = { url: new URL(action.replace(/&amp;/g, '&'), step.url).toString(), method: 'POST', form };
        continue;
      }
      if (step.status !== 200 || !action || !prompt) {
        throw new Error(`${step.url} answered ${step.status}: ${step.text.slice(0, 300)}`);
      }
      const form: Record<string, string> = prompt === 'login' ? { prompt, login, password: 'any' } : { prompt };
      next = { url: new URL(action.replace(/&amp;/g, '&'), step.url).toString(), method: 'POST', form };
    }
    throw new Error('too many redirects');
  }
}
