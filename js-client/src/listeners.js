import { matchingPatterns } from './channel.js';

/**
 * Subscriptions and listeners by channel. A handle is what `subscribe` and `addListener`
 * return; `listener: true` marks a local listener (never sent to the server, kept across
 * disconnects), `listener: false` a subscription (sent, re-sent after a re-handshake).
 */
export class ChannelListeners {
  #byChannel = new Map();
  #nextId = 0;
  #log;

  constructor(log) {
    this.#log = log;
  }

  add(channel, callback, listener, subscribeProps) {
    const handle = Object.freeze({ id: ++this.#nextId, channel, callback, listener, subscribeProps });
    let handles = this.#byChannel.get(channel);
    if (!handles) {
      handles = [];
      this.#byChannel.set(channel, handles);
    }
    handles.push(handle);
    return handle;
  }

  /** Removes a handle; true when it was there. */
  remove(handle) {
    const handles = handle && this.#byChannel.get(handle.channel);
    const index = handles ? handles.indexOf(handle) : -1;
    if (index < 0) {
      return false;
    }
    handles.splice(index, 1);
    if (handles.length === 0) {
      this.#byChannel.delete(handle.channel);
    }
    return true;
  }

  has(handle) {
    const handles = handle && this.#byChannel.get(handle.channel);
    return !!handles && handles.includes(handle);
  }

  /** True when the channel has at least one subscription (not counting listeners). */
  isSubscribed(channel) {
    const handles = this.#byChannel.get(channel);
    return !!handles && handles.some((h) => !h.listener);
  }

  /** The channels with subscriptions, each with the props of its first subscription. */
  subscriptions() {
    const result = [];
    for (const [channel, handles] of this.#byChannel) {
      const first = handles.find((h) => !h.listener);
      if (first) {
        result.push({ channel, subscribeProps: first.subscribeProps });
      }
    }
    return result;
  }

  /** Drops every subscription of `channel` (or of every channel); listeners stay. */
  clearSubscriptions(channel) {
    for (const [name, handles] of [...this.#byChannel]) {
      if (channel === undefined || channel === name) {
        const kept = handles.filter((h) => h.listener);
        if (kept.length) {
          this.#byChannel.set(name, kept);
        } else {
          this.#byChannel.delete(name);
        }
      }
    }
  }

  /** Drops every listener; subscriptions stay. */
  clearListeners() {
    for (const [name, handles] of [...this.#byChannel]) {
      const kept = handles.filter((h) => !h.listener);
      if (kept.length) {
        this.#byChannel.set(name, kept);
      } else {
        this.#byChannel.delete(name);
      }
    }
  }

  /** Calls every handle on `channel` and on the patterns matching it; a throwing callback is logged and skipped. */
  notify(channel, message) {
    for (const pattern of matchingPatterns(channel)) {
      const handles = this.#byChannel.get(pattern);
      if (handles) {
        for (const handle of [...handles]) {
          try {
            handle.callback(message);
          } catch (x) {
            this.#log.warn(`Listener ${handle.id} on ${pattern} threw on a message of ${channel}`, x);
          }
        }
      }
    }
  }
}
