// Bounded waits and recorders for the tests: nothing here waits forever.
import assert from 'node:assert/strict';
import { BayeuxClient } from '../../src/index.js';

export const TRANSPORTS = ['websocket', 'long-polling'];

/** Resolves when `predicate()` is truthy (with its value); rejects after `timeout` ms naming `what`. */
export async function waitFor(predicate, { timeout = 5000, what = 'condition', interval = 10 } = {}) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = predicate();
    if (value) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${timeout} ms waiting for ${what}`);
    }
    await sleep(interval);
  }
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A `timers` option for a client: it records every delay the client asks for (`scheduled`) and
 * counts the timers still to run (`pending`). Timers run on the global ones until `stop()`; from
 * then on new ones wait on a clock that moves only when the test calls `runNext()`, which moves it
 * to the earliest waiting timer (`now`, in ms since `stop()`), runs that timer and returns its delay.
 * `start()` hands the waiting timers back to the global ones, each with the time it has left.
 */
export function manualTimers() {
  let manual = false;
  let now = 0;
  let ids = 0;
  const pending = new Map(); // id -> { at, delay, fn, real }: real is the global timer's handle, when on one
  const arm = (entry, delay) => {
    entry.real = setTimeout(() => {
      pending.delete(entry.id);
      entry.fn();
    }, delay);
  };
  const timers = {
    scheduled: [],
    get now() { return now; },
    get pending() { return pending.size; },
    setTimeout(fn, ms) {
      const delay = Math.max(0, Number(ms) || 0);
      const entry = { id: ++ids, at: now + delay, delay, fn, real: null };
      timers.scheduled.push(delay);
      pending.set(entry.id, entry);
      if (!manual) {
        arm(entry, delay);
      }
      return entry.id;
    },
    clearTimeout(id) {
      const entry = pending.get(id);
      if (entry) {
        pending.delete(id);
        clearTimeout(entry.real);
      }
    },
    stop() {
      manual = true;
    },
    runNext() {
      const waiting = [...pending.values()].filter((e) => e.real === null).sort((x, y) => x.at - y.at || x.id - y.id);
      if (!waiting.length) {
        throw new Error('No timer waits on the stopped clock');
      }
      const [entry] = waiting;
      pending.delete(entry.id);
      now = entry.at;
      entry.fn();
      return entry.delay;
    },
    start() {
      manual = false;
      for (const entry of pending.values()) {
        if (entry.real === null) {
          arm(entry, entry.at - now);
        }
      }
    },
  };
  return timers;
}

/** A callback that records what it gets, with `next()` to await the next one. */
export function recorder(name = 'recorder') {
  const items = [];
  let read = 0;
  const fn = (item) => {
    items.push(item);
  };
  fn.items = items;
  fn.next = async (timeout = 5000) => {
    await waitFor(() => items.length > read, { timeout, what: `${name} #${read + 1}` });
    return items[read++];
  };
  return fn;
}

/** Calls `start(done)` and resolves with what `done` gets, or rejects after `timeout`. */
export function callback(start, { timeout = 5000, what = 'callback' } = {}) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Timed out after ${timeout} ms waiting for ${what}`)), timeout);
    start((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
}

/** A client of `url` forced onto `transport`, quiet, with quick retries unless told otherwise. */
export function newClient(url, transport, options = {}) {
  return new BayeuxClient({ url, transports: [transport], logLevel: 'off', backoffIncrement: 100, maxBackoff: 1000, ...options });
}

/** Handshakes and waits for the link: status 'connected'. */
export async function connect(client, props) {
  const reply = await callback((done) => client.handshake(props || {}, done), { what: 'handshake reply' });
  assert.equal(reply.successful, true, `handshake failed: ${JSON.stringify(reply)}`);
  await waitFor(() => client.getStatus() === 'connected', { what: 'status connected' });
  return reply;
}

/** Subscribes and waits for the server's reply. */
export async function subscribe(client, channel, fn, props) {
  let handle;
  const reply = await callback((done) => { handle = client.subscribe(channel, fn, props || {}, done); }, { what: `subscribe ${channel}` });
  assert.equal(reply.successful, true, `subscribe failed: ${JSON.stringify(reply)}`);
  return handle;
}

/** Disconnects if needed and waits until it is done (never throws). */
export async function stop(...clients) {
  await Promise.all(clients.filter(Boolean).map((c) => callback((done) => c.disconnect(done), { timeout: 5000 }).catch(() => c.abort())));
}

/**
 * A fetch that keeps cookies like a browser does, shared by the clients given the same jar,
 * and lets a test rewrite replies: `rewrite(messages, request)` returns the messages to hand over.
 */
export function browserFetch({ jar = new Map(), rewrite } = {}) {
  const fn = async (url, init) => {
    const headers = { ...init.headers };
    if (jar.size) {
      headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    }
    const response = await fetch(url, { ...init, headers });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    if (!rewrite || !response.ok) {
      return response;
    }
    const messages = rewrite(await response.json(), JSON.parse(init.body));
    return new Response(JSON.stringify(messages), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  fn.jar = jar;
  return fn;
}

/**
 * A WebSocket constructor over the `ws` package (its options and events too, so that cookies
 * travel) that lets a test see and change what arrives
 * (`filter(text)` returns the text to hand over, or null to drop the frame) and cut every
 * socket it made with `cut()` (a TCP reset: no close frame).
 */
export async function tappedWebSocket({ filter = (text) => text, sent = [] } = {}) {
  const { WebSocket } = await import('ws');
  const sockets = [];
  class TappedWebSocket {
    constructor(url, options) {
      this.ws = new WebSocket(url, options);
      sockets.push(this);
      this.ws.onopen = (e) => this.onopen && this.onopen(e);
      this.ws.onmessage = (e) => {
        const text = filter(String(e.data), this);
        if (text !== null && this.onmessage) {
          this.onmessage({ data: text });
        }
      };
      this.ws.onclose = (e) => this.onclose && this.onclose({ code: e.code, reason: e.reason });
      this.ws.onerror = (e) => this.onerror && this.onerror(e);
    }

    on(event, listener) {
      this.ws.on(event, listener);
    }

    send(text) {
      sent.push(text);
      this.ws.send(text);
    }

    close(code, reason) {
      this.ws.close(code, reason);
    }

    cut() {
      this.ws.terminate();
    }
  }
  TappedWebSocket.sockets = sockets;
  TappedWebSocket.sent = sent;
  TappedWebSocket.cut = () => sockets.forEach((s) => s.cut());
  return TappedWebSocket;
}
