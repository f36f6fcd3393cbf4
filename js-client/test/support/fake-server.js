// An in-process Bayeux server, as a transport registered on the client: deterministic cases
// (replies the real server would give only under load, such as 409::queue_full) without sockets.
// It answers handshakes and subscriptions at once (on a microtask, as a network would), holds
// every /meta/connect but the first of a session until the test answers it, and records
// everything the client sends.
import { BayeuxClient } from '../../src/index.js';

export class FakeServer {
  /** Every message the client sent, in order (copies, as they left the extensions). */
  sent = [];
  /** `(message) => reply fields` merged into each successful /meta/subscribe reply. */
  subscribeReply = () => ({});
  /** `(message) => refusal fields or null`: a handshake it gives fields to is refused with them. */
  refuseHandshake = () => null;
  #host = null;
  #sessions = 0;
  #clientId = null;
  #held = null; // the /meta/connect being held

  /** A client of this server, quiet and with quick retries. */
  client(options = {}) {
    const client = new BayeuxClient({ url: 'http://fake.invalid/cometd', transports: ['fake'], logLevel: 'off', backoffIncrement: 10, maxBackoff: 50, ...options });
    client.registerTransport('fake', this.#transport());
    return client;
  }

  get clientId() {
    return this.#clientId;
  }

  /** True while a /meta/connect is held. */
  get holding() {
    return this.#held !== null;
  }

  /** The messages sent on `channel`. */
  sentOn(channel) {
    return this.sent.filter((m) => m.channel === channel);
  }

  /** Delivers messages to the client as the server would, in the reply to the held connect when there is one. */
  deliver(...messages) {
    this.#reply(messages);
  }

  /** Answers the held /meta/connect with `fields` (e.g. a failure and its advice); the session is forgotten when it fails. */
  answerConnect(fields) {
    const held = this.#held;
    if (!held) {
      throw new Error('No /meta/connect is held');
    }
    this.#held = null;
    if (fields.successful === false) {
      this.#clientId = null;
    }
    this.#reply([{ id: held.id, channel: '/meta/connect', successful: true, ...fields }]);
  }

  #transport() {
    return {
      registered: (name, host) => { this.#host = host; },
      accept: () => true,
      send: (messages) => {
        for (const message of messages) {
          this.sent.push(structuredClone(message));
          this.#answer(message);
        }
      },
      abort: () => {},
    };
  }

  #answer(message) {
    const { id, channel } = message;
    const known = message.clientId === this.#clientId && this.#clientId !== null;
    switch (channel) {
      case '/meta/handshake': {
        const refusal = this.refuseHandshake(message);
        if (refusal) {
          this.#reply([{ id, channel, successful: false, ...refusal }]);
          return;
        }
        this.#clientId = `fake-${++this.#sessions}`;
        this.#reply([{ id, channel, successful: true, clientId: this.#clientId, version: '1.0', supportedConnectionTypes: ['fake'],
          advice: { reconnect: 'retry', interval: 0, timeout: 30000 } }]);
        return;
      }
      case '/meta/connect':
        if (!known) {
          this.#reply([{ id, channel, successful: false, error: '402::session_unknown', advice: { reconnect: 'handshake', interval: 0 } }]);
        } else if (message.advice && message.advice.timeout === 0) {
          this.#reply([{ id, channel, successful: true, advice: { reconnect: 'retry', interval: 0, timeout: 30000 } }]);
        } else {
          this.#held = message;
        }
        return;
      case '/meta/subscribe':
        this.#reply([known
          ? { id, channel, successful: true, subscription: message.subscription, ...this.subscribeReply(message) }
          : { id, channel, successful: false, subscription: message.subscription, error: '402::session_unknown' }]);
        return;
      case '/meta/unsubscribe':
      case '/meta/disconnect':
        this.#reply([{ id, channel, successful: true, subscription: message.subscription }]);
        return;
      default:
        this.#reply([{ id, channel, successful: known }]);
    }
  }

  #reply(messages) {
    const copies = structuredClone(messages);
    queueMicrotask(() => this.#host.receive(copies));
  }
}
