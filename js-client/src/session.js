import { BAYEUX_VERSION } from './defaults.js';
import { isMeta } from './channel.js';
import { Outbox } from './outbox.js';
import { CookieJar, hasBrowserCookieStore } from './cookies.js';

const HANDSHAKE = '/meta/handshake';
const CONNECT = '/meta/connect';
const DISCONNECT = '/meta/disconnect';
const SUBSCRIBE = '/meta/subscribe';
const UNSUBSCRIBE = '/meta/unsubscribe';

/**
 * The protocol engine behind a `BayeuxClient`: the handshake / connect cycle, back-off,
 * transport fallback, the outbox, batches, and matching replies to what was sent.
 *
 * States: 'disconnected' -> 'handshaking' -> 'connecting' -> 'connected', and 'disconnecting'
 * on the way back. The link is "up" after a successful handshake or /meta/connect and "down"
 * after a failure; while it is down, application messages wait in the outbox (bounded by
 * maxOutboxSize, the oldest failed past it) and leave when it comes back. Every attempt after
 * a network failure waits a back-off that grows by backoffIncrement up to maxBackoff and is
 * reset by a successful /meta/connect, so a server that is down is never polled in a loop.
 *
 * Not thread-safe: everything runs on the event loop.
 */
export class Session {
  #config;
  #log;
  #listeners;
  #extensions;
  #transports;
  #onStatus;
  #outbox;
  #pending = new Map();  // message id -> { message, callback, handle, remote, timer, resubscribe }
  #excluded = new Set(); // transports that failed to open since the last success
  #status = 'disconnected';
  #transport = null;     // { name, transport } in use
  #clientId = null;
  #advice;
  #backoff = 0;
  #rehandshakes = 0;     // re-handshakes asked for since the last successful /meta/connect
  #linkUp = false;       // the session is known to work right now: messages may leave
  #connecting = false;   // a /meta/connect is in flight
  #rehandshake = false;  // the next handshake reply restores subscriptions
  #timer = null;         // the scheduled handshake or connect
  #messageId = 0;
  #batchDepth = 0;
  #batch = [];
  #handshakeProps = {};
  #handshakeCallback = null;
  #ownJar = undefined;   // created on first use, null in a browser
  #disconnectCallback = null;

  /** The object transports get in `registered(name, host)`. */
  host;

  /** `config` is a function returning the current options; `onStatus()` is called on every change of status or transport. */
  constructor({ config, log, listeners, extensions, transports, onStatus }) {
    this.#config = config;
    this.#log = log;
    this.#listeners = listeners;
    this.#extensions = extensions;
    this.#transports = transports;
    this.#onStatus = onStatus;
    this.#outbox = new Outbox(() => config().maxOutboxSize);
    this.#advice = { ...config().advice };
    this.host = Object.freeze({
      options: config,
      advice: () => this.#advice,
      log,
      timers: {
        setTimeout: (fn, ms) => (config().timers || globalThis).setTimeout(fn, ms),
        clearTimeout: (t) => (config().timers || globalThis).clearTimeout(t),
      },
      cookies: () => this.#cookieJar(),
      receive: (messages) => this.receive(messages),
      failure: (messages, failure) => this.#failure(messages, failure),
    });
  }

  /** The jar the transports keep cookies in: the `cookieJar` option, else our own where no browser keeps them, else null. */
  #cookieJar() {
    const option = this.#config().cookieJar;
    if (option !== undefined) {
      return option;
    }
    if (this.#ownJar === undefined) {
      this.#ownJar = hasBrowserCookieStore() ? null : new CookieJar();
    }
    return this.#ownJar;
  }

  get status() {
    return this.#status;
  }

  get clientId() {
    return this.#clientId;
  }

  get transportName() {
    return this.#transport ? this.#transport.name : null;
  }

  get advice() {
    return { ...this.#advice };
  }

  get backoff() {
    return this.#backoff;
  }

  isDisconnected() {
    return this.#status === 'disconnected' || this.#status === 'disconnecting';
  }

  /** Starts a session; `callback(reply)` gets the handshake replies until one succeeds. */
  handshake(props, callback) {
    if (!this.#config().url) {
      throw new TypeError('No url configured: call configure({url}) first');
    }
    if (this.#status !== 'disconnected') {
      throw new Error(`Illegal state: cannot handshake while ${this.#status}`);
    }
    this.#handshakeProps = props || {};
    this.#handshakeCallback = callback || null;
    this.#excluded.clear();
    for (const name of this.#transports.names()) {
      const transport = this.#transports.find(name);
      if (typeof transport.reset === 'function') {
        transport.reset();
      }
    }
    this.#backoff = 0;
    this.#rehandshakes = 0;
    this.#advice = { ...this.#config().advice };
    this.#rehandshake = false;
    this.#handshakeNow();
  }

  /** Ends the session; `callback(reply)` once the server answered (or could not be reached). */
  disconnect(callback) {
    if (this.#status === 'disconnected') {
      if (callback) {
        queueMicrotask(() => callback({ channel: DISCONNECT, successful: true }));
      }
      return;
    }
    this.#disconnectCallback = callback || null;
    this.#cancelTimer();
    this.#failMessages([...this.#outbox.take(), ...this.#batch.splice(0)], 'disconnected');
    const up = this.#linkUp && this.#clientId;
    this.#setStatus('disconnecting');
    if (up) {
      this.#transmit([this.#track({ channel: DISCONNECT })], false);
    } else {
      this.#terminate({ channel: DISCONNECT, successful: true });
    }
  }

  /** Stops at once without telling the server, as a page that goes away (the session stays until it expires). */
  abort() {
    this.#terminate({ channel: DISCONNECT, successful: false, failure: { reason: 'aborted' } });
  }

  startBatch() {
    this.#batchDepth++;
  }

  endBatch() {
    if (this.#batchDepth === 0) {
      throw new Error('endBatch() without startBatch()');
    }
    if (--this.#batchDepth === 0 && this.#batch.length) {
      this.#dispatch(this.#batch.splice(0));
    }
  }

  /** Handles messages as if they had arrived from the server (extensions use it). */
  receive(messages) {
    for (const raw of messages) {
      if (!raw || typeof raw.channel !== 'string') {
        this.#log.warn('Ignoring a message without channel', raw);
        continue;
      }
      const message = this.#extensions.incoming(raw);
      if (message) {
        this.#handle(message);
      }
    }
  }

  // --- sending

  /** Gives `message` an id and remembers it until its reply (or failure). */
  #track(message, extra = {}) {
    message.id = String(++this.#messageId);
    this.#pending.set(message.id, { message, ...extra });
    return message;
  }

  /**
   * Sends an application message (in the current batch, if any): `extra.callback` gets its
   * reply; with `extra.timeout` (ms) a failure replaces a reply that does not come in time.
   */
  send(message, { timeout, ...extra } = {}) {
    const entry = this.#pending.get(this.#track(message, extra).id);
    if (timeout !== undefined) {
      entry.timer = this.host.timers.setTimeout(() => {
        if (this.#pending.get(message.id) === entry) {
          this.#fail(message, { reason: 'timeout' }, '406::timeout');
        }
      }, timeout);
    }
    if (this.#batchDepth > 0) {
      this.#batch.push(message);
    } else {
      this.#dispatch([message]);
    }
    return message;
  }

  /** Application messages: out now when the link is up, else into the outbox. */
  #dispatch(messages) {
    if (this.#linkUp) {
      this.#transmit(messages, false);
      return;
    }
    for (const message of messages) {
      const dropped = this.#outbox.add(message);
      if (dropped) {
        this.#log.warn(`Outbox full (${this.#config().maxOutboxSize}): dropping message ${dropped.id} on ${dropped.channel}`);
        this.#fail(dropped, { reason: 'outbox full' });
      }
    }
  }

  /** Through the extensions (on copies: the originals may be sent again) and out on the transport. */
  #transmit(messages, metaConnect) {
    const out = [];
    for (const original of messages) {
      const copy = { ...original, ext: original.ext ? { ...original.ext } : undefined };
      if (copy.ext === undefined) {
        delete copy.ext;
      }
      if (this.#clientId && copy.channel !== HANDSHAKE) {
        copy.clientId = this.#clientId;
      }
      const message = this.#extensions.outgoing(copy);
      if (message) {
        out.push(message);
      } else if (original.channel === CONNECT) {
        this.#connectFailure(original, { reason: 'deleted by an extension' });
      } else if (original.channel !== HANDSHAKE) {
        // (A handshake an extension takes over, as ReloadExtension does, is answered by it.)
        this.#fail(original, { reason: 'deleted by an extension' }, '404::message_deleted');
      }
    }
    if (out.length) {
      this.#transport.transport.send(out, metaConnect);
    }
  }

  #flushOutbox() {
    const messages = this.#outbox.take();
    if (messages.length) {
      this.#transmit(messages, false);
    }
  }

  #failMessages(messages, reason) {
    for (const message of messages) {
      this.#fail(message, { reason });
    }
  }

  /** Answers a message that got no reply with a failure reply built here. */
  #fail(message, failure, error, callback) {
    const entry = this.#pending.get(message.id);
    this.#pending.delete(message.id);
    const reply = {
      id: message.id, channel: message.channel, successful: false,
      ...(message.subscription ? { subscription: message.subscription } : {}),
      ...(error ? { error } : {}),
      failure: { ...failure, message, transport: failure.transport || this.transportName },
    };
    if (entry && entry.handle) {
      this.#listeners.remove(entry.handle); // the subscription never happened
    }
    this.#answer(entry, reply, callback || (entry && entry.callback));
  }

  // --- the handshake / connect cycle

  #handshakeNow() {
    this.#timer = null;
    const chosen = this.#negotiate();
    if (!chosen) {
      const reply = { channel: HANDSHAKE, successful: false, failure: { reason: 'no transport available' } };
      this.#answer(null, reply, this.#handshakeCallback);
      this.#terminate(reply);
      return;
    }
    this.#useTransport(chosen);
    this.#setStatus('handshaking');
    const types = this.#transports.names().filter((n) => this.#config().transports.includes(n) && !this.#excluded.has(n));
    const message = this.#track({
      ...this.#handshakeProps,
      channel: HANDSHAKE, version: BAYEUX_VERSION, minimumVersion: BAYEUX_VERSION, supportedConnectionTypes: types,
      advice: { timeout: this.#advice.timeout, interval: this.#advice.interval },
    });
    this.#transmit([message], false);
  }

  #negotiate(serverTypes) {
    const { url, transports } = this.#config();
    const crossDomain = typeof location !== 'undefined' && !!location.host && !url.includes('//' + location.host + '/');
    return this.#transports.negotiate({ allowed: transports, excluded: this.#excluded, serverTypes, version: BAYEUX_VERSION, crossDomain, url });
  }

  #useTransport(chosen) {
    if (this.#transport && this.#transport.name !== chosen.name) {
      this.#log.info(`Transport ${this.#transport.name} -> ${chosen.name}`);
      this.#transport.transport.abort();
    }
    const changed = !this.#transport || this.#transport.name !== chosen.name;
    this.#transport = chosen;
    if (changed) {
      this.#notifyStatus();
    }
  }

  #connectNow() {
    this.#timer = null;
    if (this.isDisconnected() || this.#connecting || !this.#clientId) {
      return;
    }
    this.#connecting = true;
    const message = { channel: CONNECT, connectionType: this.#transport.name };
    if (!this.#linkUp || this.#status !== 'connected') {
      message.advice = { timeout: 0 };
    }
    this.#transmit([this.#track(message)], true);
  }

  #schedule(action, delay) {
    this.#cancelTimer();
    this.#timer = this.host.timers.setTimeout(() => {
      this.#timer = null;
      action();
    }, Math.max(0, delay));
  }

  #cancelTimer() {
    if (this.#timer !== null) {
      this.host.timers.clearTimeout(this.#timer);
      this.#timer = null;
    }
  }

  #increaseBackoff() {
    this.#backoff = Math.min(this.#config().maxBackoff, this.#backoff + this.#config().backoffIncrement);
    return this.#backoff;
  }

  #rehandshakeAfter(delay) {
    this.#linkUp = false;
    this.#clientId = null;
    this.#rehandshake = true;
    this.#setStatus('handshaking');
    this.#schedule(() => this.#handshakeNow(), delay);
  }

  #mergeAdvice(message) {
    if (message.advice && typeof message.advice === 'object') {
      this.#advice = { ...this.#advice, ...message.advice };
      if (message.advice['multiple-clients']) {
        this.#log.warn('The server reports more sessions from this browser than it holds connects for; polling every',
          this.#advice.interval, 'ms');
      }
    }
  }

  #handshakeReply(message, entry) {
    this.#pending.delete(message.id);
    this.#mergeAdvice(message);
    if (message.successful) {
      const chosen = this.#negotiate(message.supportedConnectionTypes);
      if (!chosen) {
        const failure = { ...message, successful: false, failure: { reason: 'no transport in common', serverTypes: message.supportedConnectionTypes } };
        this.#answer(entry, failure, this.#handshakeCallback);
        this.#terminate(failure);
        return;
      }
      this.#useTransport(chosen);
      this.#clientId = message.clientId;
      this.#advice.reconnect = 'retry';
      const resumed = !!(message.ext && message.ext.reload === true);
      this.#setStatus('connecting');
      this.#answer(entry, message, this.#handshakeCallback);
      this.#handshakeCallback = null;
      if (this.isDisconnected()) {
        return; // a callback disconnected
      }
      if (!resumed) {
        this.#linkUp = true;
        this.#restoreSubscriptions();
        this.#flushOutbox();
      }
      this.#schedule(() => this.#connectNow(), this.#advice.interval || 0);
      return;
    }
    this.#answer(entry, message, this.#handshakeCallback);
    if (this.#status !== 'handshaking') {
      return;
    }
    if ((message.advice && message.advice.reconnect) === 'none') {
      this.#terminate(message);
    } else {
      this.#schedule(() => this.#handshakeNow(), (this.#advice.interval || 0) + this.#increaseBackoff());
    }
  }

  #handshakeFailure(message, failure) {
    if (this.#status !== 'handshaking') {
      return;
    }
    if (failure.fallback && this.#fallBack(failure)) {
      this.#pending.delete(message.id);
      this.#handshakeNow();
      return;
    }
    this.#excluded.clear();
    this.#fail(message, failure, undefined, this.#handshakeCallback);
    if (this.#status === 'handshaking') {
      this.#schedule(() => this.#handshakeNow(), this.#increaseBackoff());
    }
  }

  /** The current transport could not open: try the next one. True when there is one. */
  #fallBack(failure) {
    this.#excluded.add(this.#transport.name);
    const next = this.#negotiate();
    if (!next) {
      return false;
    }
    this.#log.info(`${this.#transport.name} failed (${failure.reason}): falling back to ${next.name}`);
    this.#useTransport(next);
    return true;
  }

  #restoreSubscriptions() {
    if (!this.#rehandshake) {
      return;
    }
    this.#rehandshake = false;
    // Unsubscriptions still waiting concern the old session: they are done.
    for (const message of this.#outbox.take((m) => m.channel === UNSUBSCRIBE)) {
      this.#answer(this.#pending.get(message.id), { id: message.id, channel: UNSUBSCRIBE, subscription: message.subscription, successful: true });
      this.#pending.delete(message.id);
    }
    const messages = [];
    for (const { channel, subscribeProps } of this.#listeners.subscriptions()) {
      if (!this.#outbox.some((m) => m.channel === SUBSCRIBE && m.subscription === channel)) {
        messages.push(this.#track({ ...subscribeProps, channel: SUBSCRIBE, subscription: channel }, { resubscribe: true }));
      }
    }
    if (messages.length) {
      this.#log.debug('Subscribing again to', messages.map((m) => m.subscription));
      this.#transmit(messages, false);
    }
  }

  #connectReply(message, entry) {
    this.#pending.delete(message.id);
    this.#connecting = false;
    this.#mergeAdvice(message);
    if (this.isDisconnected()) {
      return;
    }
    const reconnect = (message.advice && message.advice.reconnect) || (message.successful ? this.#advice.reconnect : 'retry');
    if (message.successful) {
      const wasUp = this.#linkUp;
      this.#backoff = 0;
      this.#rehandshakes = 0;
      this.#linkUp = true;
      this.#setStatus('connected');
      this.#answer(entry, message);
      if (!wasUp) {
        this.#flushOutbox();
      }
    } else {
      this.#linkUp = false;
      this.#setStatus('connecting');
      this.#answer(entry, message);
    }
    this.#afterConnect(reconnect, message);
  }

  #afterConnect(reconnect, message) {
    if (this.isDisconnected()) {
      return;
    }
    if (reconnect === 'none') {
      this.#terminate(message);
    } else if (reconnect === 'handshake') {
      // The server answered, so it is there: handshake at once, unless it keeps forgetting the session.
      this.#advice.reconnect = 'retry';
      const { backoffIncrement, maxBackoff } = this.#config();
      const delay = (this.#advice.interval || 0) + Math.min(maxBackoff, this.#rehandshakes++ * backoffIncrement);
      this.#rehandshakeAfter(delay);
    } else if (message.successful) {
      this.#schedule(() => this.#connectNow(), this.#advice.interval || 0);
    } else {
      this.#schedule(() => this.#connectNow(), this.#increaseBackoff());
    }
  }

  #connectFailure(message, failure) {
    this.#connecting = false;
    if (this.isDisconnected()) {
      return;
    }
    if (failure.fallback && this.#fallBack(failure)) {
      this.#pending.delete(message.id);
      this.#connectNow();
      return;
    }
    this.#linkUp = false;
    this.#setStatus('connecting');
    this.#fail(message, failure);
    this.#afterConnect(this.#advice.reconnect === 'none' ? 'none' : 'retry', { channel: CONNECT, successful: false });
  }

  /** Ends the session locally: stops timers and transports, fails what waits, tells the listeners. */
  #terminate(message) {
    this.#cancelTimer();
    const wasUp = this.#status !== 'disconnected';
    this.#clientId = null;
    this.#linkUp = false;
    this.#connecting = false;
    if (this.#transport) {
      this.#transport.transport.abort();
    }
    this.#setStatus('disconnected');
    this.#failMessages([...this.#outbox.take(), ...this.#batch.splice(0)], 'disconnected');
    for (const [id, entry] of [...this.#pending]) {
      if (entry.message.channel !== DISCONNECT) {
        this.#fail(entry.message, { reason: 'disconnected' });
      }
      this.#pending.delete(id);
    }
    this.#listeners.clearSubscriptions();
    if (wasUp && message.channel === DISCONNECT) {
      this.#listeners.notify(DISCONNECT, message);
    }
    const callback = this.#disconnectCallback;
    this.#disconnectCallback = null;
    if (callback) {
      this.#call(callback, message);
    }
  }

  // --- receiving

  #handle(message) {
    const entry = message.id !== undefined ? this.#pending.get(message.id) : undefined;
    const mine = entry && entry.message.channel === message.channel ? entry : undefined;
    switch (message.channel) {
      case HANDSHAKE:
        if (mine && this.#status === 'handshaking') {
          this.#handshakeReply(message, mine);
        }
        return;
      case CONNECT:
        if (mine) {
          this.#connectReply(message, mine);
        }
        return;
      case DISCONNECT:
        if (mine || message.id === undefined) {
          this.#pending.delete(message.id);
          this.#terminate(message);
        }
        return;
      case SUBSCRIBE:
      case UNSUBSCRIBE:
        this.#pending.delete(message.id);
        if (message.channel === SUBSCRIBE && message.successful === false && mine
            && !String(message.error).startsWith('402:')) {
          // Refused: the local subscription goes (a 402 is made good by the re-handshake).
          if (mine.handle) {
            this.#listeners.remove(mine.handle);
          } else if (mine.resubscribe) {
            this.#listeners.clearSubscriptions(message.subscription);
          }
        }
        this.#answer(mine, message);
        return;
      default:
        if (mine && mine.remote) {
          if ('data' in message || message.successful === false) {
            this.#pending.delete(message.id);
            this.host.timers.clearTimeout(mine.timer);
            this.#answer(mine, message);
          }
        } else if ('data' in message) {
          this.#listeners.notify(message.channel, message);
        } else if (mine || message.successful !== undefined) {
          this.#pending.delete(message.id);
          this.#answer(mine, { ...message });
        }
    }
  }

  /** Hands a reply to whoever waits for it: the meta channel's listeners, then the callback. */
  #answer(entry, reply, callback = entry && entry.callback) {
    const channel = isMeta(reply.channel) ? reply.channel : '/meta/publish';
    if (!isMeta(reply.channel) && entry && entry.remote) {
      // A remote call's result goes to its caller only.
    } else {
      this.#listeners.notify(channel, reply);
    }
    if (reply.successful === false) {
      this.#listeners.notify('/meta/unsuccessful', reply);
    }
    if (entry && entry.timer) {
      this.host.timers.clearTimeout(entry.timer);
    }
    if (callback) {
      this.#call(callback, reply);
    }
  }

  #call(callback, message) {
    try {
      callback(message);
    } catch (x) {
      this.#log.warn(`Callback for ${message.channel} threw`, x);
    }
  }

  /** A transport could not deliver these messages, or got no reply for them. */
  #failure(messages, failure) {
    for (const message of messages) {
      const entry = this.#pending.get(message.id);
      if (!entry) {
        continue;
      }
      switch (message.channel) {
        case HANDSHAKE:
          this.#handshakeFailure(entry.message, failure);
          break;
        case CONNECT:
          this.#connectFailure(entry.message, failure);
          break;
        case DISCONNECT:
          this.#pending.delete(message.id);
          this.#terminate({ id: message.id, channel: DISCONNECT, successful: true, failure });
          break;
        default:
          if (failure.fallback && !this.isDisconnected()) {
            this.#outbox.add(entry.message); // never left: it goes again on the next transport
          } else {
            this.#fail(entry.message, failure);
          }
      }
    }
  }

  #setStatus(status) {
    if (this.#status !== status) {
      this.#log.debug(`Status ${this.#status} -> ${status}`);
      this.#status = status;
      this.#notifyStatus();
    }
  }

  #notifyStatus() {
    this.#onStatus();
  }
}
