const SUBSCRIBE = '/meta/subscribe';
const UNSUBSCRIBE = '/meta/unsubscribe';

/**
 * The server's side of the subscriptions: its replies to (un)subscribe, and subscribing again
 * to every channel after a re-handshake (the server forgot the old session and its channels).
 */
export class Subscriptions {
  #listeners;
  #replies;
  #outgoing;
  #log;

  constructor({ listeners, replies, outgoing, log }) {
    this.#listeners = listeners;
    this.#replies = replies;
    this.#outgoing = outgoing;
    this.#log = log;
  }

  /** A reply on /meta/subscribe or /meta/unsubscribe; `mine` is the entry it answers, if any. */
  reply(message, mine) {
    this.#replies.delete(message.id);
    if (message.channel === SUBSCRIBE && message.successful === false && mine
        && !String(message.error).startsWith('402:')) {
      // Refused: the local subscription goes (a 402 is made good by the re-handshake).
      if (mine.handle) {
        this.#listeners.remove(mine.handle);
      } else if (mine.resubscribe) {
        this.#listeners.clearSubscriptions(message.subscription);
      }
    }
    this.#replies.answer(mine, message);
  }

  /** After a re-handshake: subscribes again to what the listeners hold. */
  restore() {
    // Unsubscriptions still waiting concern the old session: they are done.
    for (const message of this.#outgoing.withdraw((m) => m.channel === UNSUBSCRIBE)) {
      this.#replies.answer(this.#replies.get(message.id), { id: message.id, channel: UNSUBSCRIBE, subscription: message.subscription, successful: true });
      this.#replies.delete(message.id);
    }
    const messages = [];
    for (const { channel, subscribeProps } of this.#listeners.subscriptions()) {
      if (!this.#outgoing.holds((m) => m.channel === SUBSCRIBE && m.subscription === channel)) {
        messages.push(this.#replies.track({ ...subscribeProps, channel: SUBSCRIBE, subscription: channel }, { resubscribe: true }));
      }
    }
    if (messages.length) {
      this.#log.debug('Subscribing again to', messages.map((m) => m.subscription));
      this.#outgoing.transmit(messages, false);
    }
  }
}
