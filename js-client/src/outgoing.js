import { Outbox } from './outbox.js';

const HANDSHAKE = '/meta/handshake';
const CONNECT = '/meta/connect';

/**
 * The way out to the server: batches, the outbox that holds application messages while the
 * link is down, and the extensions' outgoing pass on each message as it leaves.
 *
 * `link` tells how the session stands: `isUp()`, `clientId()`, `transport()` (the one in
 * use), and `connectDeleted(message, failure)` for a /meta/connect an extension deleted.
 */
export class Outgoing {
  #config;
  #log;
  #extensions;
  #replies;
  #timers;
  #link;
  #outbox;
  #batchDepth = 0;
  #batch = [];

  constructor({ config, log, extensions, replies, timers, link }) {
    this.#config = config;
    this.#log = log;
    this.#extensions = extensions;
    this.#replies = replies;
    this.#timers = timers;
    this.#link = link;
    this.#outbox = new Outbox(() => config().maxOutboxSize);
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

  /**
   * Sends an application message (in the current batch, if any): `extra.callback` gets its
   * reply; with `extra.timeout` (ms) a failure replaces a reply that does not come in time.
   */
  send(message, { timeout, ...extra } = {}) {
    this.#replies.track(message, extra);
    const entry = this.#replies.get(message.id);
    if (timeout !== undefined) {
      entry.timer = this.#timers.setTimeout(() => {
        if (this.#replies.get(message.id) === entry) {
          this.#replies.fail(message, { reason: 'timeout' }, '406::timeout');
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
    if (this.#link.isUp()) {
      this.transmit(messages, false);
      return;
    }
    for (const message of messages) {
      const dropped = this.#outbox.add(message);
      if (dropped) {
        this.#log.warn(`Outbox full (${this.#config().maxOutboxSize}): dropping message ${dropped.id} on ${dropped.channel}`);
        this.#replies.fail(dropped, { reason: 'outbox full' });
      }
    }
  }

  /** Through the extensions (on copies: the originals may be sent again) and out on the transport. */
  transmit(messages, metaConnect) {
    const out = [];
    for (const original of messages) {
      const copy = { ...original, ext: original.ext ? { ...original.ext } : undefined };
      if (copy.ext === undefined) {
        delete copy.ext;
      }
      const clientId = this.#link.clientId();
      if (clientId && copy.channel !== HANDSHAKE) {
        copy.clientId = clientId;
      }
      const message = this.#extensions.outgoing(copy);
      if (message) {
        out.push(message);
      } else if (original.channel === CONNECT) {
        this.#link.connectDeleted(original, { reason: 'deleted by an extension' });
      } else if (original.channel !== HANDSHAKE) {
        // (A handshake an extension takes over, as ReloadExtension does, is answered by it.)
        this.#replies.fail(original, { reason: 'deleted by an extension' }, '404::message_deleted');
      }
    }
    if (out.length) {
      this.#link.transport().send(out, metaConnect);
    }
  }

  /** Sends what waited in the outbox. */
  flush() {
    const messages = this.#outbox.take();
    if (messages.length) {
      this.transmit(messages, false);
    }
  }

  /** Takes out every message not sent yet: the outbox's, then the open batch's. */
  drain() {
    return [...this.#outbox.take(), ...this.#batch.splice(0)];
  }

  /** Puts back a message that never left, to go on the next transport. */
  requeue(message) {
    this.#outbox.add(message);
  }

  /** Takes the waiting messages matching `predicate` out of the outbox. */
  withdraw(predicate) {
    return this.#outbox.take(predicate);
  }

  holds(predicate) {
    return this.#outbox.some(predicate);
  }
}
