import { CookieJar, hasBrowserCookieStore } from './cookies.js';

/**
 * The object transports get in `registered(name, host)`. `config` returns the current
 * options and `advice` the current advice; `receive` and `failure` go back to the session.
 */
export function transportHost({ config, log, advice, receive, failure }) {
  let ownJar; // created on first use, null in a browser
  // The `cookieJar` option, else our own where no browser keeps the cookies, else null.
  const cookies = () => {
    const option = config().cookieJar;
    if (option !== undefined) {
      return option;
    }
    if (ownJar === undefined) {
      ownJar = hasBrowserCookieStore() ? null : new CookieJar();
    }
    return ownJar;
  };
  return Object.freeze({
    options: config,
    advice,
    log,
    // Looked up on every call: the `timers` option may be configured later.
    timers: {
      setTimeout: (fn, ms) => (config().timers || globalThis).setTimeout(fn, ms),
      clearTimeout: (t) => (config().timers || globalThis).clearTimeout(t),
    },
    cookies,
    receive,
    failure,
  });
}
