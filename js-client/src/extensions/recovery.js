import { isMeta, matchingPatterns } from '../channel.js';
import { createLogger } from '../logger.js';

const SUBSCRIBE = '/meta/subscribe';
const UNSUBSCRIBE = '/meta/unsubscribe';
const HANDSHAKE = '/meta/handshake';
const DISCONNECT = '/meta/disconnect';

/**
 * History and recovery (docs/history.md): gets back what the client missed on channels with
 * history when it subscribes again, drops what it already delivered, and tells the application
 * of every channel it could not recover.
 *
 * ```js
 * client.registerExtension('recovery', new RecoveryExtension({
 *   onGap: (channel, reason) => reload(channel),
 *   onRecovered: (channel, replayed) => console.log(`${replayed} missed messages on ${channel}`),
 * }));
 * ```
 *
 * - Remembers, per channel, the position (`{offset, epoch}`) of the last message delivered
 *   (`ext.position`) or the one a subscribe reply names (`ext.history[channel]`).
 * - Every /meta/subscribe carries `ext.recover` with the positions of its channels, so a
 *   subscription made again (after a re-handshake, or by the application) asks the server for
 *   the messages after them.
 * - Drops a message at or before the remembered position of the same epoch that was delivered
 *   already; one that comes late (after one with a higher offset, up to 4,096 offsets below it)
 *   goes through once.
 * - `onRecovered(channel, replayed)`: the server replays the `replayed` missed messages (they may
 *   come before or after the reply; the position stays where it was until they do).
 *   `onGap(channel, reason)`: they cannot all be had (`epoch`, `trimmed`, `expired`, `ahead`,
 *   `no_history`): nothing is replayed and the application should reload the channel's state.
 * - When the session lost messages (a reply failing with `409::queue_full`, or `402` when the
 *   server forgot the session), every subscribed channel without a position (no history, or a
 *   wildcard) is reported as `onGap(channel, 'no_history')` once it is subscribed again.
 *
 * Positions are kept while some subscription covers their channel: an unsubscribe forgets
 * them, a disconnect forgets everything. While disabled (`setEnabled(false)`) the extension
 * still remembers positions but asks for nothing, drops nothing and calls nothing.
 * Callbacks that throw are logged and skipped. Not thread-safe: everything runs on the event loop.
 */
export class RecoveryExtension {
  #onGap;
  #onRecovered;
  #enabled;
  #log = createLogger(() => ({ logLevel: 'warn' }));
  #positions = new Map(); // channel -> Delivered
  #subscribed = new Set(); // channels the server confirmed a subscription to
  #asked = new Map();     // id of a /meta/subscribe sent -> Set of the channels whose recovery it asked
  #lost = false;          // the session lost messages: the next handshake makes #unrecoverable
  #unrecoverable = new Set(); // channels to report as 'no_history' when subscribed again

  constructor({ onGap, onRecovered, enabled = true } = {}) {
    for (const [name, fn] of [['onGap', onGap], ['onRecovered', onRecovered]]) {
      if (fn !== undefined && typeof fn !== 'function') {
        throw new TypeError(`Invalid ${name}: ${fn}`);
      }
    }
    this.#onGap = onGap;
    this.#onRecovered = onRecovered;
    this.#enabled = !!enabled;
  }

  registered(name, client) {
    this.#log = createLogger(() => client.getConfiguration());
  }

  /** Recovery on (the default) or off; positions are remembered either way. */
  setEnabled(enabled) {
    this.#enabled = !!enabled;
  }

  get enabled() {
    return this.#enabled;
  }

  /** A copy of the remembered positions: `{[channel]: {offset, epoch}}`. */
  positions() {
    const copy = {};
    for (const [channel, delivered] of this.#positions) {
      copy[channel] = { offset: delivered.offset, epoch: delivered.epoch };
    }
    return copy;
  }

  outgoing(message) {
    switch (message.channel) {
      case SUBSCRIBE:
        this.#askRecovery(message);
        break;
      case UNSUBSCRIBE:
        // Forgotten now: a reply may never come through here (one to a session that went is made by the client).
        channels(message.subscription).forEach((channel) => this.#positions.delete(channel));
        break;
      case DISCONNECT:
        this.#forgetAll();
        break;
      default:
    }
    return message;
  }

  incoming(message) {
    const channel = message.channel;
    if (message.successful === false && /^40[92]:/.test(String(message.error))) {
      this.#lost = true; // the server dropped the session, and with it what it held for us
    }
    switch (channel) {
      case HANDSHAKE:
        this.#handshakeReply(message);
        return message;
      case SUBSCRIBE:
        this.#subscribeReply(message);
        return message;
      case UNSUBSCRIBE:
        if (message.successful) {
          this.#unsubscribed(channels(message.subscription));
        }
        return message;
      case DISCONNECT:
        this.#forgetAll();
        return message;
      default:
        return isMeta(channel) || !('data' in message) ? message : this.#delivery(message);
    }
  }

  /** A message on a channel: dropped when already delivered, else its position is remembered. */
  #delivery(message) {
    const position = positionOf(message.ext && message.ext.position);
    if (!position) {
      return message;
    }
    const delivered = this.#positions.get(message.channel);
    if (!delivered) {
      this.#positions.set(message.channel, new Delivered(position));
      return message;
    }
    if (!delivered.deliver(position) && this.#enabled) {
      this.#log.debug(`Dropping a message already delivered on ${message.channel}`, position,
        'last', { offset: delivered.offset, epoch: delivered.epoch });
      return null;
    }
    return message;
  }

  #askRecovery(message) {
    if (!this.#enabled) {
      return;
    }
    const recover = {};
    for (const channel of channels(message.subscription)) {
      const delivered = this.#positions.get(channel);
      if (delivered && !isPattern(channel)) {
        recover[channel] = { offset: delivered.offset, epoch: delivered.epoch };
      }
    }
    const asked = Object.keys(recover);
    if (asked.length === 0) {
      return;
    }
    const ext = message.ext || {};
    // What the application put in ext.recover itself wins.
    message.ext = { ...ext, recover: { ...recover, ...ext.recover } };
    if (message.id !== undefined) {
      this.#asked.set(message.id, new Set(asked));
    }
  }

  #handshakeReply(message) {
    if (!message.successful || (message.ext && message.ext.reload === true)) {
      return; // (a session resumed after a page reload is the same session: nothing was lost)
    }
    this.#asked.clear(); // a new session: what was asked of the old one is answered by nobody
    if (this.#lost) {
      this.#lost = false;
      for (const channel of this.#subscribed) {
        if (isPattern(channel) || !this.#positions.has(channel)) {
          this.#unrecoverable.add(channel);
        }
      }
    }
  }

  #subscribeReply(message) {
    const asked = this.#asked.get(message.id);
    this.#asked.delete(message.id);
    const subscription = channels(message.subscription);
    if (!message.successful) {
      if (!String(message.error).startsWith('402:')) {
        // Refused: no subscription any more (a 402 is made good by the re-handshake).
        subscription.forEach((channel) => this.#subscribed.delete(channel));
        this.#unsubscribed(subscription);
      }
      return;
    }
    subscription.forEach((channel) => this.#subscribed.add(channel));
    const history = (message.ext && message.ext.history) || {};
    for (const channel of new Set([...subscription, ...Object.keys(history)])) {
      const entry = history[channel];
      const askedFor = asked ? asked.has(channel) : !!(entry && typeof entry.recovered === 'boolean');
      if (askedFor) {
        this.#recoveryOutcome(channel, entry);
      } else {
        const position = positionOf(entry);
        if (position) {
          this.#advance(channel, position);
        }
        if (this.#unrecoverable.delete(channel)) {
          this.#gap(channel, 'no_history');
        }
      }
      this.#unrecoverable.delete(channel);
    }
  }

  #recoveryOutcome(channel, entry) {
    if (entry && entry.recovered === true) {
      // The position stays: the replayed messages may come after this reply, and move it.
      const replayed = typeof entry.replayed === 'number' ? entry.replayed : 0;
      if (this.#enabled) {
        this.#call(this.#onRecovered, 'onRecovered', channel, replayed);
      }
      return;
    }
    // Not recovered (or no word of it: a server or channel without history): from now on.
    const position = positionOf(entry);
    if (position) {
      this.#positions.set(channel, new Delivered(position));
    } else {
      this.#positions.delete(channel);
    }
    this.#gap(channel, (entry && typeof entry.reason === 'string' && entry.reason) || 'no_history');
  }

  /** Moves a channel's position forward, never backwards within an epoch. */
  #advance(channel, position) {
    const delivered = this.#positions.get(channel);
    if (delivered) {
      delivered.advance(position);
    } else {
      this.#positions.set(channel, new Delivered(position));
    }
  }

  /** Forgets the channels, and the positions no remaining subscription covers. */
  #unsubscribed(gone) {
    for (const channel of gone) {
      this.#subscribed.delete(channel);
      this.#positions.delete(channel);
      this.#unrecoverable.delete(channel);
    }
    for (const channel of [...this.#positions.keys()]) {
      if (!matchingPatterns(channel).some((pattern) => this.#subscribed.has(pattern))) {
        this.#positions.delete(channel);
      }
    }
  }

  #forgetAll() {
    this.#positions.clear();
    this.#subscribed.clear();
    this.#asked.clear();
    this.#unrecoverable.clear();
    this.#lost = false;
  }

  #gap(channel, reason) {
    if (this.#enabled) {
      this.#call(this.#onGap, 'onGap', channel, reason);
    }
  }

  #call(fn, name, ...args) {
    if (!fn) {
      return;
    }
    try {
      fn(...args);
    } catch (x) {
      this.#log.warn(`RecoveryExtension ${name}(${args.join(', ')}) threw`, x);
    }
  }
}

/** How many offsets below a channel's highest position `Delivered` tells apart. */
const WINDOW = 4096;

/**
 * What was delivered of one channel's history: the highest position, and which of the WINDOW
 * offsets below it were delivered, so that a message coming late (after one with a higher
 * offset: replies that overtook each other, live messages before a replay) goes through once
 * instead of being dropped as seen. Only the position is kept while messages come in order; the
 * window (512 bytes) is made at the first gap. Every offset up to a position set from outside (a
 * subscription's start) counts as delivered, as does every offset WINDOW or more below the highest.
 */
class Delivered {
  constructor({ offset, epoch }) {
    this.offset = offset;
    this.epoch = epoch;
    this.window = null; // bit (offset mod WINDOW): delivered; null while all up to offset were
  }

  /** A message at `position` came: true when it is new (it counts as delivered from now on). */
  deliver({ offset, epoch }) {
    if (epoch !== this.epoch) {
      this.offset = offset;
      this.epoch = epoch;
      this.window = null;
      return true;
    }
    const high = this.offset;
    if (offset > high) {
      if (offset > high + 1 && !this.window) {
        this.window = new Uint32Array(WINDOW / 32).fill(0xffffffff);
      }
      if (this.window) {
        // The offsets skipped have not come (yet); this one has.
        if (offset - 1 - high >= WINDOW) {
          this.window.fill(0);
        } else {
          for (let skipped = high + 1; skipped < offset; skipped++) {
            this.#set(skipped, false);
          }
        }
        this.#set(offset, true);
      }
      this.offset = offset;
      return true;
    }
    if (!this.window || offset <= high - WINDOW || this.#isSet(offset)) {
      return false;
    }
    this.#set(offset, true);
    return true;
  }

  /** Moves to `position` when it is ahead, or of another epoch: all up to it counts as delivered. */
  advance({ offset, epoch }) {
    if (epoch !== this.epoch || offset > this.offset) {
      this.offset = offset;
      this.epoch = epoch;
      this.window = null;
    }
  }

  #set(offset, value) {
    const bit = ((offset % WINDOW) + WINDOW) % WINDOW;
    if (value) {
      this.window[bit >>> 5] |= 1 << (bit & 31);
    } else {
      this.window[bit >>> 5] &= ~(1 << (bit & 31));
    }
  }

  #isSet(offset) {
    const bit = ((offset % WINDOW) + WINDOW) % WINDOW;
    return (this.window[bit >>> 5] & (1 << (bit & 31))) !== 0;
  }
}

/** The subscription of a /meta/subscribe or /meta/unsubscribe: a channel or an array of them. */
function channels(subscription) {
  return (Array.isArray(subscription) ? subscription : [subscription]).filter((c) => typeof c === 'string');
}

function isPattern(channel) {
  return channel.endsWith('/*') || channel.endsWith('/**');
}

/** `{offset, epoch}` from a position-like value, or null when it is not one. */
function positionOf(value) {
  if (value && typeof value === 'object' && Number.isFinite(value.offset) && typeof value.epoch === 'string') {
    return { offset: value.offset, epoch: value.epoch };
  }
  return null;
}
