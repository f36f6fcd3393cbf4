/**
 * The WebSocket transport: one socket per client, opened on first use, carrying batches of
 * messages as JSON arrays both ways. Every message sent with an id waits for its reply at
 * most maxNetworkDelay (plus the held time for /meta/connect); a reply that does not come
 * closes the socket, which fails every message still waiting.
 *
 * The constructor comes from the `WebSocket` option, else the global, else the `ws` package
 * (Node), loaded when first needed. A socket that never opens fails with `fallback: true`,
 * so that the client moves on to the next transport.
 */
export class WebSocketTransport {
  #name = 'websocket';
  #host = null;
  #socket = null;
  #opened = false;      // the current socket is open
  #everOpened = false;  // some socket of this transport opened once: failures are network, not fallback
  #queue = [];          // batches waiting for the socket to open
  #pending = new Map(); // message id -> { message, timer }
  #openTimer = null;
  #ctor = undefined;    // resolved constructor and whether it came from 'ws'

  registered(name, host) {
    this.#name = name;
    this.#host = host;
  }

  get name() {
    return this.#name;
  }

  accept() {
    return true;
  }

  send(messages, metaConnect) {
    const options = this.#host.options();
    for (const message of messages) {
      if (message.id !== undefined) {
        const delay = options.maxNetworkDelay + (metaConnect ? this.#host.advice().timeout : 0);
        const timer = this.#host.timers.setTimeout(() => this.#timeout(message), delay);
        this.#pending.set(message.id, { message, timer });
      }
    }
    if (this.#opened) {
      this.#write(messages);
    } else {
      this.#queue.push(messages);
      if (!this.#socket) {
        this.#open();
      }
    }
  }

  /** Closes the socket without reporting anything: the client stops. */
  abort() {
    this.#clearPending();
    this.#queue = [];
    this.#close(1000, 'Client closing');
  }

  /** A fresh start: the next failure to open is a reason to fall back again. */
  reset() {
    this.abort();
    this.#everOpened = false;
  }

  #write(messages) {
    try {
      this.#socket.send(JSON.stringify(messages));
    } catch (x) {
      this.#failSocket(this.#socket, { reason: 'send failed', exception: x });
    }
  }

  async #open() {
    const options = this.#host.options();
    const placeholder = {};
    this.#socket = placeholder;
    const jar = this.#host.cookies();
    let ctor;
    try {
      ctor = await this.#resolveWebSocket(options, jar !== null);
    } catch (x) {
      if (this.#socket === placeholder) {
        this.#socket = null;
        this.#failAll({ reason: 'WebSocket unavailable', exception: x, fallback: true });
      }
      return;
    }
    if (this.#socket !== placeholder) {
      return; // aborted while loading
    }
    const url = options.url.replace(/^http/, 'ws');
    let socket;
    try {
      const headers = { ...options.requestHeaders };
      const cookie = jar ? jar.header(url) : '';
      if (cookie) {
        headers.Cookie = cookie;
      }
      // Outside a browser (a cookie jar, or the ws package) the constructor takes ws's options;
      // a browser's takes protocols there, and sends its own cookies.
      socket = (ctor.fromWs || jar) && Object.keys(headers).length
        ? new ctor.WebSocket(url, { headers }) : new ctor.WebSocket(url);
      if (jar && typeof socket.on === 'function') {
        // The upgrade's 101 may set the cookie the session will belong to.
        socket.on('upgrade', (response) => jar.store(url, response.headers['set-cookie']));
      }
    } catch (x) {
      this.#socket = null;
      this.#failAll({ reason: 'WebSocket construction failed', exception: x, fallback: !this.#everOpened });
      return;
    }
    this.#socket = socket;
    const timeout = options.connectTimeout > 0 ? options.connectTimeout : options.maxNetworkDelay;
    this.#openTimer = this.#host.timers.setTimeout(() => {
      this.#host.log.info(`WebSocket ${url} did not open within ${timeout} ms`);
      this.#failSocket(socket, { reason: 'open timeout', fallback: !this.#everOpened });
    }, timeout);
    socket.onopen = () => {
      if (socket !== this.#socket) {
        return;
      }
      this.#host.timers.clearTimeout(this.#openTimer);
      this.#opened = true;
      this.#everOpened = true;
      this.#host.log.debug(`WebSocket ${url} open`);
      const queued = this.#queue;
      this.#queue = [];
      for (const messages of queued) {
        this.#write(messages);
      }
    };
    socket.onmessage = (event) => {
      if (socket === this.#socket) {
        this.#onMessage(socket, event.data);
      }
    };
    socket.onerror = () => {
      // The close event that follows says what happened.
    };
    socket.onclose = (event) => {
      this.#failSocket(socket, {
        reason: `closed (${event.code}${event.reason ? ' ' + event.reason : ''})`,
        code: event.code,
        fallback: !this.#everOpened,
      });
    };
  }

  /**
   * The `WebSocket` option, else the global one, else `ws`. Where the client keeps its own
   * cookies (Node), `ws` comes first when installed: unlike Node's global WebSocket it sends
   * headers (the cookies) on the upgrade and shows the 101's `Set-Cookie`.
   */
  async #resolveWebSocket(options, needsHeaders) {
    if (options.WebSocket) {
      return { WebSocket: options.WebSocket, fromWs: false };
    }
    const global = typeof globalThis.WebSocket === 'function' ? { WebSocket: globalThis.WebSocket, fromWs: false } : null;
    if (global && !needsHeaders) {
      return global;
    }
    if (this.#ctor === undefined) {
      try {
        const module = 'ws';
        const ws = await import(/* webpackIgnore: true */ module);
        this.#ctor = { WebSocket: ws.WebSocket || ws.default, fromWs: true };
      } catch (x) {
        if (global) {
          return global;
        }
        throw x;
      }
    }
    return this.#ctor;
  }

  #onMessage(socket, data) {
    let messages;
    try {
      messages = JSON.parse(typeof data === 'string' ? data : String(data));
    } catch (x) {
      this.#host.log.warn('Unparseable WebSocket message, closing', data);
      this.#failSocket(socket, { reason: 'bad message', exception: x });
      return;
    }
    messages = Array.isArray(messages) ? messages : [messages];
    for (const message of messages) {
      const pending = message.id !== undefined && this.#pending.get(message.id);
      if (pending && pending.message.channel === message.channel) {
        this.#host.timers.clearTimeout(pending.timer);
        this.#pending.delete(message.id);
      }
    }
    this.#host.receive(messages);
  }

  #timeout(message) {
    if (this.#pending.has(message.id)) {
      this.#host.log.info(`No reply to message ${message.id} on ${message.channel} in time, closing the WebSocket`);
      this.#failSocket(this.#socket, { reason: 'timeout' });
    }
  }

  /** The socket is gone: forget it and fail what waited on it. Only the current socket counts. */
  #failSocket(socket, failure) {
    if (socket !== this.#socket || socket === null) {
      return;
    }
    this.#close(1000, failure.reason);
    this.#failAll(failure);
  }

  #failAll(failure) {
    const waiting = [...this.#pending.values()].map((p) => p.message);
    const queuedWithoutId = this.#queue.flat().filter((m) => m.id === undefined);
    this.#clearPending();
    this.#queue = [];
    const messages = [...waiting, ...queuedWithoutId];
    if (messages.length) {
      this.#host.failure(messages, { ...failure, transport: this.#name });
    }
  }

  #clearPending() {
    for (const { timer } of this.#pending.values()) {
      this.#host.timers.clearTimeout(timer);
    }
    this.#pending.clear();
  }

  #close(code, reason) {
    const socket = this.#socket;
    this.#socket = null;
    this.#opened = false;
    this.#host.timers.clearTimeout(this.#openTimer);
    if (socket && typeof socket.close === 'function') {
      socket.onopen = socket.onmessage = socket.onclose = null;
      socket.onerror = () => {};
      try {
        socket.close(code, String(reason).slice(0, 120));
      } catch {
        // already closing
      }
    }
  }
}
