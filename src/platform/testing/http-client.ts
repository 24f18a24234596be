/**
 * A tiny browser stand-in for tests: fetch with a cookie jar and no automatic redirects, so each
 * step of the sign-in flow can be looked at. Plain HTTP, as curl would do it.
 */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  store(response: Response) {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
    }
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  get(name: string) {
    return this.cookies.get(name);
  }

  set(name: string, value: string) {
    this.cookies.set(name, value);
  }

  entries(): [string, string][] {
    return [...this.cookies];
  }
}

export interface Browser {
  jar: CookieJar;
  get(url: string, headers?: Record<string, string>): Promise<Response>;
  postForm(url: string, form: Record<string, string>, headers?: Record<string, string>): Promise<Response>;
}

export function browser(): Browser {
  const jar = new CookieJar();
  const send = async (url: string, init: RequestInit) => {
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: jar.header() },
    });
    jar.store(response);
    return response;
  };
  return {
    jar,
    get: (url, headers = {}) => send(url, { method: 'GET', headers }),
    postForm: (url, form, headers = {}) =>
      send(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(form).toString(),
      }),
  };
}

/** The value of a hidden or visible form field in a server-rendered page. */
export function formField(html: string, name: string): string | undefined {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  return match?.[1]
    ?.replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** Every hidden field of the page's form, decoded. */
export function hiddenFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    fields[match[1]!] = formField(html, match[1]!)!;
  }
  return fields;
}
