/**
 * The one place where the client's defaults live. Every option can be changed with
 * `client.configure({...})`; the values here are what a CometD user expects.
 */
export const DEFAULTS = Object.freeze({
  /** The Bayeux endpoint, e.g. `http://127.0.0.1:8080/cometd` (required). */
  url: undefined,
  /** 'debug', 'info', 'warn', 'error' or 'off'. */
  logLevel: 'info',
  /** Where log lines go; defaults to `console`. */
  logger: undefined,
  /** Each failed attempt waits this much longer than the previous one (ms). */
  backoffIncrement: 1000,
  /** The longest wait between two attempts (ms). */
  maxBackoff: 60000,
  /** How long a request may take beyond what the server holds it for (ms). */
  maxNetworkDelay: 10000,
  /** How long a WebSocket may take to open; 0 means maxNetworkDelay (ms). */
  connectTimeout: 0,
  /** Headers added to every HTTP request (and to the WebSocket upgrade where the environment allows it). */
  requestHeaders: {},
  /** Long-polling: append `/handshake`, `/connect`... to the URL of single meta messages. */
  appendMessageTypeToURL: true,
  /** Long-polling: how many requests may be in flight at once, one of them the held /meta/connect. */
  maxConnections: 2,
  /** How many messages published while the connection is down are kept; the oldest is failed past it. */
  maxOutboxSize: 1000,
  /** The transports this client may use, in preference order. Add 'callback-polling' for JSONP. */
  transports: ['websocket', 'long-polling'],
  /** Callback-polling: the longest URL a request may have before it is split. */
  maxURILength: 2000,
  /** The advice assumed until the server gives its own. */
  advice: Object.freeze({ timeout: 60000, interval: 0, reconnect: 'retry', maxInterval: 0 }),
  /** A WebSocket constructor; defaults to the global one, else the `ws` package in Node. */
  WebSocket: undefined,
  /**
   * Where the client keeps the cookies servers set (they bind a session to its browser
   * cookie): by default a `CookieJar` per client where no browser keeps cookies (Node), none in
   * a browser, which keeps them itself. A `CookieJar` to share or inspect one; `null` for none.
   */
  cookieJar: undefined,
  /** A fetch function; defaults to the global one. */
  fetch: undefined,
  /** Callback-polling: `(url, callbackName) => Promise<messages>`; defaults to a script element. */
  jsonpLoader: undefined,
  /** A timer source `{setTimeout, clearTimeout}`; defaults to the global timers. */
  timers: undefined,
});

/** The protocol version this client speaks. */
export const BAYEUX_VERSION = '1.0';
