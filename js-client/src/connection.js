import { BAYEUX_VERSION } from './defaults.js';

const HANDSHAKE = '/meta/handshake';
const CONNECT = '/meta/connect';
const DISCONNECT = '/meta/disconnect';

/**
 * The handshake / connect cycle and its back-off: the session's state machine.
 *
 * States: 'disconnected' -> 'handshaking' -> 'connecting' -> 'connected', and 'disconnecting'
 * on the way back. The link is "up" after a successful handshake or /meta/connect and "down"
 * after a failure; while it is down, application messages wait in the outbox (bounded by
 * maxOutboxSize, the oldest failed past it) and leave when it comes back. Every attempt after
 * a network failure waits a back-off that grows by backoffIncrement up to maxBackoff and is
 * reset by a successful /meta/connect, so a server that is down is never polled in a loop.
 */
export class Connection {
  #config;
  #log;
  #listeners;
  #timers;
  #transport;            // the TransportChoice
  #replies;
  #outgoing;
  #subscriptions;
  #onStatus;
  #status = 'disconnected';
  #clientId = null;
  #advice;
  #backoff = 0;
  #rehandshakes = 0;     // re-handshakes asked for since the last successful /meta/connect
  #linkUp = false;       // the session is known to work right now: messages may leave
  #connecting = false;   // a /meta/connect is in flight
  #rehandshake = false;  // the next handshake reply restores subscriptions
  #timer = null;         // the scheduled handshake or connect
  #handshakeProps = {};
  #handshakeCallback = null;
  #disconnectCallback = null;

  constructor({ config, log, listeners, timers, transport, replies, outgoing, subscriptions, onStatus }) {
    this.#config = config;
    this.#log = log;
    this.#listeners = listeners;
    this.#timers = timers;
    this.#transport = transport;
    this.#replies = replies;
    this.#outgoing = outgoing;
    this.#subscriptions = subscriptions;
    this.#onStatus = onStatus;
    this.#advice = { ...config().advice };
  }

  get status() {
    return this.#status;
  }

  get clientId() {
    return this.#clientId;
  }

  /** The advice in force, the object itself: transports read it as it changes. */
  get advice() {
    return this.#advice;
  }

  get backoff() {
    return this.#backoff;
  }

  get linkUp() {
    return this.#linkUp;
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
    this.#transport.reset();
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
    this.#replies.failAll(this.#outgoing.drain(), 'disconnected');
    const up = this.#linkUp && this.#clientId;
    this.#setStatus('disconnecting');
    if (up) {
      this.#outgoing.transmit([this.#replies.track({ channel: DISCONNECT })], false);
    } else {
      this.terminate({ channel: DISCONNECT, successful: true });
    }
  }

  #handshakeNow() {
    this.#timer = null;
    const chosen = this.#transport.negotiate();
    if (!chosen) {
      const reply = { channel: HANDSHAKE, successful: false, failure: { reason: 'no transport available' } };
      this.#replies.answer(null, reply, this.#handshakeCallback);
      this.terminate(reply);
      return;
    }
    this.#transport.use(chosen);
    this.#setStatus('handshaking');
    const message = this.#replies.track({
      ...this.#handshakeProps,
      channel: HANDSHAKE, version: BAYEUX_VERSION, minimumVersion: BAYEUX_VERSION, supportedConnectionTypes: this.#transport.offered(),
      advice: { timeout: this.#advice.timeout, interval: this.#advice.interval },
    });
    this.#outgoing.transmit([message], false);
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
    this.#outgoing.transmit([this.#replies.track(message)], true);
  }

  #schedule(action, delay) {
    this.#cancelTimer();
    this.#timer = this.#timers.setTimeout(() => {
      this.#timer = null;
      action();
    }, Math.max(0, delay));
  }

  #cancelTimer() {
    if (this.#timer !== null) {
      this.#timers.clearTimeout(this.#timer);
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

  /** A reply to our handshake; `entry` is what waited for it. */
  handshakeReply(message, entry) {
    if (this.#status !== 'handshaking') {
      return;
    }
    this.#replies.delete(message.id);
    this.#mergeAdvice(message);
    if (message.successful) {
      const chosen = this.#transport.negotiate(message.supportedConnectionTypes);
      if (!chosen) {
        const failure = { ...message, successful: false, failure: { reason: 'no transport in common', serverTypes: message.supportedConnectionTypes } };
        this.#replies.answer(entry, failure, this.#handshakeCallback);
        this.terminate(failure);
        return;
      }
      this.#transport.use(chosen);
      this.#clientId = message.clientId;
      this.#advice.reconnect = 'retry';
      const resumed = !!(message.ext && message.ext.reload === true);
      this.#setStatus('connecting');
      this.#replies.answer(entry, message, this.#handshakeCallback);
      this.#handshakeCallback = null;
      if (this.isDisconnected()) {
        return; // a callback disconnected
      }
      if (!resumed) {
        this.#linkUp = true;
        if (this.#rehandshake) {
          this.#rehandshake = false;
          this.#subscriptions.restore();
        }
        this.#outgoing.flush();
      }
      this.#schedule(() => this.#connectNow(), this.#advice.interval || 0);
      return;
    }
    this.#replies.answer(entry, message, this.#handshakeCallback);
    if (this.#status !== 'handshaking') {
      return;
    }
    if ((message.advice && message.advice.reconnect) === 'none') {
      this.terminate(message);
    } else {
      this.#schedule(() => this.#handshakeNow(), (this.#advice.interval || 0) + this.#increaseBackoff());
    }
  }

  /** Our handshake did not reach the server, or got no reply. */
  handshakeFailure(message, failure) {
    if (this.#status !== 'handshaking') {
      return;
    }
    if (failure.fallback && this.#transport.fallBack(failure)) {
      this.#replies.delete(message.id);
      this.#handshakeNow();
      return;
    }
    this.#transport.clearExcluded();
    this.#replies.fail(message, failure, undefined, this.#handshakeCallback);
    if (this.#status === 'handshaking') {
      this.#schedule(() => this.#handshakeNow(), this.#increaseBackoff());
    }
  }

  /** A reply to our /meta/connect; `entry` is what waited for it. */
  connectReply(message, entry) {
    this.#replies.delete(message.id);
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
      this.#replies.answer(entry, message);
      if (!wasUp) {
        this.#outgoing.flush();
      }
    } else {
      this.#linkUp = false;
      this.#setStatus('connecting');
      this.#replies.answer(entry, message);
    }
    this.#afterConnect(reconnect, message);
  }

  #afterConnect(reconnect, message) {
    if (this.isDisconnected()) {
      return;
    }
    if (reconnect === 'none') {
      this.terminate(message);
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

  /** Our /meta/connect did not reach the server (or an extension deleted it), or got no reply. */
  connectFailure(message, failure) {
    this.#connecting = false;
    if (this.isDisconnected()) {
      return;
    }
    if (failure.fallback && this.#transport.fallBack(failure)) {
      this.#replies.delete(message.id);
      this.#connectNow();
      return;
    }
    this.#linkUp = false;
    this.#setStatus('connecting');
    this.#replies.fail(message, failure);
    this.#afterConnect(this.#advice.reconnect === 'none' ? 'none' : 'retry', { channel: CONNECT, successful: false });
  }

  /** Ends the session locally: stops timers and transports, fails what waits, tells the listeners. */
  terminate(message) {
    this.#cancelTimer();
    const wasUp = this.#status !== 'disconnected';
    this.#clientId = null;
    this.#linkUp = false;
    this.#connecting = false;
    this.#transport.abort();
    this.#setStatus('disconnected');
    this.#replies.failAll(this.#outgoing.drain(), 'disconnected');
    for (const [id, entry] of this.#replies.entries()) {
      if (entry.message.channel !== DISCONNECT) {
        this.#replies.fail(entry.message, { reason: 'disconnected' });
      }
      this.#replies.delete(id);
    }
    this.#listeners.clearSubscriptions();
    if (wasUp && message.channel === DISCONNECT) {
      this.#listeners.notify(DISCONNECT, message);
    }
    const callback = this.#disconnectCallback;
    this.#disconnectCallback = null;
    if (callback) {
      this.#replies.call(callback, message);
    }
  }

  #setStatus(status) {
    if (this.#status !== status) {
      this.#log.debug(`Status ${this.#status} -> ${status}`);
      this.#status = status;
      this.#onStatus();
    }
  }
}
