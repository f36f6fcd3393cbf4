import { isMeta } from './channel.js';

/**
 * The messages sent that wait for a reply, by id, and the handing of a reply (received, or a
 * failure built here) to whoever waits for it: the meta channel's listeners, then the callback.
 */
export class Replies {
  #pending = new Map(); // message id -> { message, callback, handle, remote, timer, resubscribe }
  #messageId = 0;
  #listeners;
  #log;
  #timers;
  #transportName;

  /** `transportName()` names the transport in use, for the failures built here. */
  constructor({ listeners, log, timers, transportName }) {
    this.#listeners = listeners;
    this.#log = log;
    this.#timers = timers;
    this.#transportName = transportName;
  }

  /** Gives `message` an id and remembers it until its reply (or failure). */
  track(message, extra = {}) {
    message.id = String(++this.#messageId);
    this.#pending.set(message.id, { message, ...extra });
    return message;
  }

  get(id) {
    return this.#pending.get(id);
  }

  delete(id) {
    this.#pending.delete(id);
  }

  /** A copy: entries may go while the caller walks it. */
  entries() {
    return [...this.#pending];
  }

  failAll(messages, reason) {
    for (const message of messages) {
      this.fail(message, { reason });
    }
  }

  /** Answers a message that got no reply with a failure reply built here. */
  fail(message, failure, error, callback) {
    const entry = this.#pending.get(message.id);
    this.#pending.delete(message.id);
    const reply = {
      id: message.id, channel: message.channel, successful: false,
      ...(message.subscription ? { subscription: message.subscription } : {}),
      ...(error ? { error } : {}),
      failure: { ...failure, message, transport: failure.transport || this.#transportName() },
    };
    if (entry && entry.handle) {
      this.#listeners.remove(entry.handle); // the subscription never happened
    }
    this.answer(entry, reply, callback || (entry && entry.callback));
  }

  /** Hands a reply to whoever waits for it: the meta channel's listeners, then the callback. */
  answer(entry, reply, callback = entry && entry.callback) {
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
      this.#timers.clearTimeout(entry.timer);
    }
    if (callback) {
      this.call(callback, reply);
    }
  }

  /** Calls an application callback; one that throws is logged, so the session goes on. */
  call(callback, message) {
    try {
      callback(message);
    } catch (x) {
      this.#log.warn(`Callback for ${message.channel} threw`, x);
    }
  }
}
