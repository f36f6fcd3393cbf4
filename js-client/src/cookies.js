/**
 * A small cookie jar for environments without a browser cookie store (Node): it keeps the
 * cookies servers set and gives the `Cookie` header for a URL, following RFC 6265's storage
 * and matching rules (domain, host-only, path, Secure, expiry by Expires or Max-Age).
 * CometD-style servers bind a long-polling session to a browser cookie, so a client that keeps
 * no cookies is refused after its handshake. HttpOnly is stored but does not stop sending:
 * this is the HTTP client, not a page's script. Bounded: past `maxCookies` the least recently
 * set cookie is dropped.
 */
export class CookieJar {
  /** name, value, domain, hostOnly, path, secure, httpOnly, expires (ms or Infinity), created */
  #cookies = [];
  #maxCookies;
  #clock;

  constructor({ maxCookies = 300, now = () => Date.now() } = {}) {
    this.#maxCookies = maxCookies;
    this.#clock = now;
  }

  /** Stores the cookies of `Set-Cookie` header values (a string, or an array of them) received from `url`. */
  store(url, setCookies) {
    if (setCookies === undefined || setCookies === null) {
      return;
    }
    const target = new URL(url);
    const values = Array.isArray(setCookies) ? setCookies : [setCookies];
    for (const value of values) {
      const cookie = parseSetCookie(String(value), target, this.#clock());
      if (cookie) {
        this.#put(cookie);
      }
    }
  }

  /** The `Cookie` header value for a request to `url`, or '' when no cookie applies. */
  header(url) {
    const target = new URL(url);
    const host = canonicalHost(target.hostname);
    const secure = target.protocol === 'https:' || target.protocol === 'wss:';
    const path = target.pathname || '/';
    const now = this.#clock();
    this.#cookies = this.#cookies.filter((c) => c.expires > now);
    return this.#cookies
      .filter((c) => (c.hostOnly ? c.domain === host : domainMatch(host, c.domain))
        && pathMatch(path, c.path) && (!c.secure || secure))
      .sort((a, b) => b.path.length - a.path.length || a.created - b.created)
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }

  /** The cookies currently kept (copies), for inspection and tests. */
  cookies() {
    const now = this.#clock();
    return this.#cookies.filter((c) => c.expires > now).map((c) => ({ ...c }));
  }

  clear() {
    this.#cookies = [];
  }

  #put(cookie) {
    const index = this.#cookies.findIndex((c) => c.name === cookie.name && c.domain === cookie.domain && c.path === cookie.path);
    if (index >= 0) {
      cookie.created = this.#cookies[index].created;
      this.#cookies.splice(index, 1);
    }
    if (cookie.expires <= this.#clock()) {
      return; // an expiry in the past deletes the cookie
    }
    this.#cookies.push(cookie);
    if (this.#cookies.length > this.#maxCookies) {
      this.#cookies.shift();
    }
  }
}

/**
 * Whether this environment keeps cookies itself: a browser page or worker, whose fetch and
 * WebSocket send the site's cookies. Node, Deno and Bun have no such store.
 */
export function hasBrowserCookieStore() {
  return typeof document !== 'undefined' || typeof globalThis.WorkerGlobalScope !== 'undefined';
}

/**
 * The `Set-Cookie` values of a fetch `Headers`: `getSetCookie()` where available, else the
 * comma-joined `set-cookie` split where a new cookie starts (Expires dates contain commas).
 */
export function setCookieHeaders(headers) {
  if (!headers) {
    return [];
  }
  if (typeof headers.getSetCookie === 'function') {
    return headers.getSetCookie();
  }
  const joined = typeof headers.get === 'function' ? headers.get('set-cookie') : null;
  return joined ? joined.split(/,(?=\s*[^;,=\s]+=)/).map((s) => s.trim()) : [];
}

/** RFC 6265 5.2 and 5.3: one Set-Cookie value as a cookie to store, or null when it must be ignored. */
export function parseSetCookie(value, url, now) {
  const parts = value.split(';');
  const pair = parts[0];
  const eq = pair.indexOf('=');
  if (eq <= 0) {
    return null; // no name: ignored
  }
  const name = pair.slice(0, eq).trim();
  const cookieValue = pair.slice(eq + 1).trim();
  if (!name || /[\s\x00-\x1f\x7f]/.test(name) || /[\x00-\x1f\x7f]/.test(cookieValue)) {
    return null;
  }
  const host = canonicalHost(url.hostname);
  let expires = Infinity;
  let maxAge = null;
  let domain = '';
  let path = null;
  let secure = false;
  let httpOnly = false;
  for (const attribute of parts.slice(1)) {
    const at = attribute.indexOf('=');
    const key = (at < 0 ? attribute : attribute.slice(0, at)).trim().toLowerCase();
    const val = at < 0 ? '' : attribute.slice(at + 1).trim();
    if (key === 'expires') {
      const time = Date.parse(val);
      if (!Number.isNaN(time)) {
        expires = time;
      }
    } else if (key === 'max-age') {
      if (/^-?\d+$/.test(val)) {
        const seconds = Number(val);
        maxAge = seconds <= 0 ? -Infinity : now + seconds * 1000;
      }
    } else if (key === 'domain') {
      domain = val.replace(/^\./, '').toLowerCase();
    } else if (key === 'path') {
      path = val.startsWith('/') ? val : null;
    } else if (key === 'secure') {
      secure = true;
    } else if (key === 'httponly') {
      httpOnly = true;
    }
  }
  if (maxAge !== null) {
    expires = maxAge; // Max-Age wins over Expires
  }
  let hostOnly = true;
  if (domain) {
    if (!domainMatch(host, domain)) {
      return null; // a cookie for a domain the server is not in
    }
    hostOnly = false;
    domain = canonicalHost(domain);
  } else {
    domain = host;
  }
  const secureScheme = url.protocol === 'https:' || url.protocol === 'wss:';
  if (secure && !secureScheme) {
    return null; // only a secure origin may set a Secure cookie
  }
  return {
    name, value: cookieValue, domain, hostOnly, path: path ?? defaultPath(url.pathname),
    secure, httpOnly, expires, created: now,
  };
}

function canonicalHost(hostname) {
  return hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
}

function isIpAddress(host) {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(':');
}

/** RFC 6265 5.1.3: the host is the domain, or a name under it (never for an IP address). */
export function domainMatch(host, domain) {
  if (host === domain) {
    return true;
  }
  return !isIpAddress(host) && host.endsWith('.' + domain) && domain.length > 0;
}

/** RFC 6265 5.1.4: the directory of the request path. */
export function defaultPath(pathname) {
  if (!pathname || !pathname.startsWith('/')) {
    return '/';
  }
  const last = pathname.lastIndexOf('/');
  return last === 0 ? '/' : pathname.slice(0, last);
}

/** RFC 6265 5.1.4: the request path is the cookie path or below it. */
export function pathMatch(requestPath, cookiePath) {
  if (requestPath === cookiePath) {
    return true;
  }
  return requestPath.startsWith(cookiePath) && (cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/');
}
