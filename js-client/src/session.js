import { transportHost } from './host.js';
import { Replies } from './replies.js';
import { Outgoing } from './outgoing.js';
import { TransportChoice } from './transport-choice.js';
import { Subscriptions } from './subscriptions.js';
import { Connection } from './connection.js';

const HANDSHAKE = '/meta/handshake';
const CONNECT = '/meta/connect';
const DISCONNECT = '/meta/disconnect';
const SUBSCRIBE = '/meta/subscribe';
const UNSUBSCRIBE = '/meta/unsubscribe';

/**
 * The protocol engine behind a `BayeuxClient`: puts its parts together (the handshake /
 * connect cycle in `Connection`, the way out in `Outgoing`, the replies awaited in `Replies`,
 * the transport in `TransportChoice`, the server's subscriptions in `Subscriptions`) and
 * routes what arrives, and what the transports could not deliver, to the part it concerns.
 *
 * Not thread-safe: everything runs on the event loop.
 */
export class Session {
  #log;
  #listeners;
  #extensions;
  #replies;
  #outgoing;
  #transport;            // the TransportChoice
  #subscriptions;
  #connection;

  /** The object transports get in `registered(name, host)`. */
  host;

  /** `config` is a function returning the current options; `onStatus()` is called on every change of status or transport. */
  constructor({ config, log, listeners, extensions, transports, onStatus }) {
    this.#log = log;
    this.#listeners = listeners;
    this.#extensions = extensions;
    this.host = transportHost({
      config,
      log,
      advice: () => this.#connection.advice,
      receive: (messages) => this.receive(messages),
      failure: (messages, failure) => this.#failure(messages, failure),
    });
    const timers = this.host.timers;
    this.#transport = new TransportChoice({ config, log, transports, onChange: () => onStatus() });
    this.#replies = new Replies({ listeners, log, timers, transportName: () => this.transportName });
    // The link's state lives in the Connection, made below: read when messages leave.
    this.#outgoing = new Outgoing({
      config, log, extensions, replies: this.#replies, timers,
      link: {
        isUp: () => this.#connection.linkUp,
        clientId: () => this.#connection.clientId,
        transport: () => this.#transport.transport,
        connectDeleted: (message, failure) => this.#connection.connectFailure(message, failure),
      },
    });
    this.#subscriptions = new Subscriptions({ listeners, replies: this.#replies, outgoing: this.#outgoing, log });
    this.#connection = new Connection({
      config, log, listeners, timers, transport: this.#transport, replies: this.#replies,
      outgoing: this.#outgoing, subscriptions: this.#subscriptions, onStatus,
    });
  }

  get status() {
    return this.#connection.status;
  }

  get clientId() {
    return this.#connection.clientId;
  }

  get transportName() {
    return this.#transport.name;
  }

  get advice() {
    return { ...this.#connection.advice };
  }

  get backoff() {
    return this.#connection.backoff;
  }

  isDisconnected() {
    return this.#connection.isDisconnected();
  }

  /** Starts a session; `callback(reply)` gets the handshake replies until one succeeds. */
  handshake(props, callback) {
    this.#connection.handshake(props, callback);
  }

  /** Ends the session; `callback(reply)` once the server answered (or could not be reached). */
  disconnect(callback) {
    this.#connection.disconnect(callback);
  }

  /** Stops at once without telling the server, as a page that goes away (the session stays until it expires). */
  abort() {
    this.#connection.terminate({ channel: DISCONNECT, successful: false, failure: { reason: 'aborted' } });
  }

  startBatch() {
    this.#outgoing.startBatch();
  }

  endBatch() {
    this.#outgoing.endBatch();
  }

  /** See `Outgoing.send`. */
  send(message, extra) {
    return this.#outgoing.send(message, extra);
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

  #handle(message) {
    const entry = message.id !== undefined ? this.#replies.get(message.id) : undefined;
    const mine = entry && entry.message.channel === message.channel ? entry : undefined;
    switch (message.channel) {
      case HANDSHAKE:
        if (mine) {
          this.#connection.handshakeReply(message, mine);
        }
        return;
      case CONNECT:
        if (mine) {
          this.#connection.connectReply(message, mine);
        }
        return;
      case DISCONNECT:
        if (mine || message.id === undefined) {
          this.#replies.delete(message.id);
          this.#connection.terminate(message);
        }
        return;
      case SUBSCRIBE:
      case UNSUBSCRIBE:
        this.#subscriptions.reply(message, mine);
        return;
      default:
        if (mine && mine.remote) {
          if ('data' in message || message.successful === false) {
            this.#replies.delete(message.id);
            this.host.timers.clearTimeout(mine.timer);
            this.#replies.answer(mine, message);
          }
        } else if ('data' in message) {
          this.#listeners.notify(message.channel, message);
        } else if (mine || message.successful !== undefined) {
          this.#replies.delete(message.id);
          this.#replies.answer(mine, { ...message });
        }
    }
  }

  /** A transport could not deliver these messages, or got no reply for them. */
  #failure(messages, failure) {
    for (const message of messages) {
      const entry = this.#replies.get(message.id);
      if (!entry) {
        continue;
      }
      switch (message.channel) {
        case HANDSHAKE:
          this.#connection.handshakeFailure(entry.message, failure);
          break;
        case CONNECT:
          this.#connection.connectFailure(entry.message, failure);
          break;
        case DISCONNECT:
          this.#replies.delete(message.id);
          this.#connection.terminate({ id: message.id, channel: DISCONNECT, successful: true, failure });
          break;
        default:
          if (failure.fallback && !this.isDisconnected()) {
            this.#outgoing.requeue(entry.message); // never left: it goes again on the next transport
          } else {
            this.#replies.fail(entry.message, failure);
          }
      }
    }
  }
}
