import { DEFAULTS } from './defaults.js';
import { mergeConfig } from './config.js';
import { requireChannel, isMeta } from './channel.js';
import { createLogger } from './logger.js';
import { ChannelListeners } from './listeners.js';
import { ExtensionChain } from './extensions.js';
import { TransportRegistry } from './transport-registry.js';
import { Session } from './session.js';
import { WebSocketTransport } from './transports/websocket.js';
import { LongPollingTransport } from './transports/long-polling.js';
import { CallbackPollingTransport } from './transports/callback-polling.js';

const SUBSCRIBE = '/meta/subscribe';
const UNSUBSCRIBE = '/meta/unsubscribe';

/**
 * A Bayeux client, in the manner of CometD's JavaScript `CometD` object:
 *
 * ```js
 * const client = new BayeuxClient({ url: 'http://localhost:8080/cometd' });
 * client.handshake((reply) => {
 *   if (reply.successful) client.subscribe('/chat/lobby', (m) => show(m.data));
 * });
 * client.publish('/chat/lobby', { text: 'hi' });
 * ```
 *
 * WebSocket is tried first; a WebSocket that cannot open makes the client fall back to
 * long-polling (`getTransport()` says which is in use). A lost connection is retried with a
 * growing back-off; a session the server forgot is handshaken again and its subscriptions
 * restored; messages published meanwhile wait in a bounded outbox. See `Session` for the
 * states, and `DEFAULTS` for the options.
 *
 * Callbacks run on the event loop; one that throws is logged and skipped. Bad arguments throw
 * a TypeError naming the bad value; calls that need a session throw while disconnected.
 */
export class BayeuxClient {
  #config = { ...DEFAULTS };
  #log = createLogger(() => this.#config);
  #listeners = new ChannelListeners(this.#log);
  #extensions = new ExtensionChain(this.#log);
  #transports = new TransportRegistry();
  #statusListeners = new Set();
  #session;

  /** `config`: options for `configure`, or the URL. */
  constructor(config) {
    this.#session = new Session({
      config: () => this.#config,
      log: this.#log,
      listeners: this.#listeners,
      extensions: this.#extensions,
      transports: this.#transports,
      onStatus: () => this.#notifyStatus(),
    });
    this.registerTransport('websocket', new WebSocketTransport());
    this.registerTransport('long-polling', new LongPollingTransport());
    if (config !== undefined) {
      this.configure(config);
    }
  }

  // --- configuration

  /** Sets options (see `DEFAULTS`); a string is the URL. A bad value throws a TypeError naming it. */
  configure(config) {
    this.#config = mergeConfig(this.#config, config);
    if (this.#config.transports.includes('callback-polling') && !this.#transports.find('callback-polling')) {
      this.registerTransport('callback-polling', new CallbackPollingTransport());
    }
    return this;
  }

  getConfiguration() {
    return { ...this.#config };
  }

  getURL() {
    return this.#config.url;
  }

  /** `configure(config)` then `handshake(props)`. */
  init(config, props) {
    this.configure(config);
    this.handshake(props);
    return this;
  }

  // --- state

  /** 'disconnected', 'handshaking', 'connecting', 'connected' or 'disconnecting'. */
  getStatus() {
    return this.#session.status;
  }

  isDisconnected() {
    return this.#session.isDisconnected();
  }

  getClientId() {
    return this.#session.clientId;
  }

  /** The name of the transport in use ('websocket', 'long-polling'...), or null. */
  getTransport() {
    return this.#session.transportName;
  }

  /** The server's latest advice merged over the configured one. */
  getAdvice() {
    return this.#session.advice;
  }

  /** The wait before the next attempt after a failure (0 while things work). */
  getBackoffPeriod() {
    return this.#session.backoff;
  }

  /** Calls `listener(status, transportName)` on every change of status or transport. */
  addStatusListener(listener) {
    if (typeof listener !== 'function') {
      throw new TypeError(`Invalid status listener: ${listener}`);
    }
    this.#statusListeners.add(listener);
  }

  removeStatusListener(listener) {
    return this.#statusListeners.delete(listener);
  }

  // --- transports and extensions

  /**
   * Adds a transport under `name` at `index` in the preference order (last by default); it
   * becomes usable at once. False when the name is taken.
   */
  registerTransport(name, transport, index) {
    const added = this.#transports.add(name, transport, index);
    if (added) {
      if (typeof transport.registered === 'function') {
        transport.registered(name, this.#session.host);
      }
      if (!this.#config.transports.includes(name)) {
        this.#config = { ...this.#config, transports: [...this.#config.transports, name] };
      }
    }
    return added;
  }

  /** Removes a transport; returns it, or null when there was none by that name. */
  unregisterTransport(name) {
    const transport = this.#transports.remove(name);
    if (transport && typeof transport.unregistered === 'function') {
      transport.unregistered();
    }
    return transport;
  }

  /** The registered transports' names, in preference order. */
  getTransportTypes() {
    return this.#transports.names();
  }

  findTransport(name) {
    return this.#transports.find(name);
  }

  /**
   * Adds an extension: an object with optional `incoming(message)` and `outgoing(message)`
   * (return the message, or null to drop it) and `registered(name, client)` / `unregistered()`.
   */
  registerExtension(name, extension) {
    return this.#extensions.register(name, extension, this);
  }

  unregisterExtension(name) {
    return this.#extensions.unregister(name);
  }

  getExtension(name) {
    return this.#extensions.get(name);
  }

  // --- session

  /**
   * Starts a session with the configured URL: `props` are merged into the handshake message,
   * `callback(reply)` gets the handshake replies until one succeeds (or the client gives up).
   */
  handshake(props, callback) {
    if (typeof props === 'function') {
      [props, callback] = [undefined, props];
    }
    this.#session.handshake(props, callback);
  }

  /** Ends the session; `callback(reply)` once the server answered (or could not be reached). */
  disconnect(callback) {
    this.#session.disconnect(callback);
  }

  /** Stops at once without telling the server, as a page that goes away (the session stays until it expires). */
  abort() {
    this.#session.abort();
  }

  /** For extensions: handles `message` (or an array of them) as if it had arrived from the server. */
  receive(message) {
    this.#session.receive(Array.isArray(message) ? message : [message]);
  }

  // --- subscriptions and listeners

  /**
   * Subscribes `callback(message)` to `channel` (wildcards allowed); `props` are merged into the
   * /meta/subscribe message, `subscribeCallback(reply)` gets its reply. Only the channel's first
   * subscription is sent to the server. Returns the handle for `unsubscribe`.
   */
  subscribe(channel, callback, props, subscribeCallback) {
    if (typeof props === 'function') {
      [props, subscribeCallback] = [undefined, props];
    }
    requireChannel(channel);
    if (isMeta(channel)) {
      throw new TypeError(`Cannot subscribe to meta channel ${channel}: use addListener`);
    }
    requireFunction(callback, 'callback');
    this.#requireSession('subscribe');
    const send = !this.#listeners.isSubscribed(channel);
    const handle = this.#listeners.add(channel, callback, false, props);
    if (send) {
      this.#session.send({ ...props, channel: SUBSCRIBE, subscription: channel }, { callback: subscribeCallback, handle });
    } else if (subscribeCallback) {
      queueMicrotask(() => subscribeCallback({ channel: SUBSCRIBE, subscription: channel, successful: true }));
    }
    return handle;
  }

  /** Removes a subscription; the server is told when it was the channel's last one. */
  unsubscribe(handle, props, callback) {
    if (typeof props === 'function') {
      [props, callback] = [undefined, props];
    }
    if (!handle || handle.listener || !this.#listeners.remove(handle)) {
      throw new TypeError(`Not a subscription of this client: ${describe(handle)}`);
    }
    if (!this.#listeners.isSubscribed(handle.channel) && !this.isDisconnected()) {
      this.#session.send({ ...props, channel: UNSUBSCRIBE, subscription: handle.channel }, { callback });
    } else if (callback) {
      queueMicrotask(() => callback({ channel: UNSUBSCRIBE, subscription: handle.channel, successful: true }));
    }
  }

  /** Subscribes the handle's callback again (its channel is sent to the server if needed); returns the new handle. */
  resubscribe(handle, props, subscribeCallback) {
    if (!handle || handle.listener) {
      throw new TypeError(`Not a subscription: ${describe(handle)}`);
    }
    this.#listeners.remove(handle);
    return this.subscribe(handle.channel, handle.callback, props || handle.subscribeProps, subscribeCallback);
  }

  /** Forgets every subscription locally (the server keeps them until the session ends). */
  clearSubscriptions() {
    this.#listeners.clearSubscriptions();
  }

  /** Listens to `channel` locally (meta channels included, e.g. '/meta/connect'); nothing is sent. */
  addListener(channel, callback) {
    requireChannel(channel);
    requireFunction(callback, 'callback');
    return this.#listeners.add(channel, callback, true);
  }

  removeListener(handle) {
    if (!handle || !handle.listener) {
      throw new TypeError(`Not a listener: ${describe(handle)}`);
    }
    return this.#listeners.remove(handle);
  }

  /** Removes every local listener; subscriptions stay. */
  clearListeners() {
    this.#listeners.clearListeners();
  }

  // --- publishing

  /** Publishes `data` on `channel`; `props` are merged into the message, `callback(reply)` gets the reply. */
  publish(channel, data, props, callback) {
    if (typeof props === 'function') {
      [props, callback] = [undefined, props];
    }
    requireChannel(channel);
    if (isMeta(channel) || channel.endsWith('/*') || channel.endsWith('/**')) {
      throw new TypeError(`Cannot publish to ${channel}`);
    }
    this.#requireSession('publish');
    this.#session.send({ ...props, channel, data }, { callback });
  }

  /**
   * Calls the service `target` (on `/service/<target>`) with `data`; `callback(reply)` gets the
   * reply that carries the result in `data`, or a failure (`successful: false`) when the
   * service failed, the link did, or no result came within `timeout` ms (default maxNetworkDelay).
   */
  remoteCall(target, data, timeout, callback) {
    if (typeof timeout === 'function') {
      [timeout, callback] = [undefined, timeout];
    }
    if (typeof target !== 'string' || !target) {
      throw new TypeError(`Invalid remote call target: ${JSON.stringify(target)}`);
    }
    const channel = requireChannel('/service/' + target.replace(/^\/+/, ''), 'remote call target');
    requireFunction(callback, 'callback');
    const delay = timeout === undefined ? this.#config.maxNetworkDelay : timeout;
    if (!(typeof delay === 'number' && delay > 0)) {
      throw new TypeError(`Invalid remote call timeout: ${JSON.stringify(timeout)}`);
    }
    this.#requireSession('remoteCall');
    this.#session.send({ channel, data }, { callback, remote: true, timeout: delay });
  }

  // --- batching

  /** Holds back every message sent until the matching `endBatch`, then sends them together. */
  startBatch() {
    this.#session.startBatch();
  }

  endBatch() {
    this.#session.endBatch();
  }

  /** Runs `fn` with every message it sends going out in one batch; returns what `fn` returns. */
  batch(fn) {
    requireFunction(fn, 'batch function');
    this.startBatch();
    try {
      return fn.call(this);
    } finally {
      this.endBatch();
    }
  }

  #requireSession(what) {
    if (this.isDisconnected()) {
      throw new Error(`Illegal state: cannot ${what} while ${this.getStatus()}`);
    }
  }

  #notifyStatus() {
    for (const listener of [...this.#statusListeners]) {
      try {
        listener(this.getStatus(), this.getTransport());
      } catch (x) {
        this.#log.warn('Status listener threw', x);
      }
    }
  }
}

function requireFunction(fn, what) {
  if (typeof fn !== 'function') {
    throw new TypeError(`Invalid ${what}: ${fn}`);
  }
}

function describe(handle) {
  return handle && typeof handle === 'object' ? `{id: ${handle.id}, channel: ${handle.channel}}` : String(handle);
}
