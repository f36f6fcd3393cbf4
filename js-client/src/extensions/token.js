/**
 * Token authentication, client side (the server side is bayeux-auth-jwt): puts the current token
 * in every handshake's `ext.token`; when the server asks for a new one on /service/token
 * (`{action: 'refresh'}`), awaits `refresh()` and publishes `{token}` there, without reconnecting;
 * and when a handshake is refused because the token expired or is missing, awaits `refresh()` and
 * handshakes again with the new token.
 *
 * ```js
 * client.registerExtension('token', new TokenExtension({ token, refresh: () => fetchToken() }));
 * ```
 *
 * A `refresh` that rejects or resolves to nothing sends nothing: the server then disconnects the
 * session once the old token's grace period ends, with the advice to handshake again. That
 * handshake carries the old token and is refused (`403:token_expired:handshake_denied`).
 *
 * A handshake refused for one of `REFRESHABLE` (`token_expired`, `token_missing`) is held from the
 * client until `refresh()` settles: with a new token, the client handshakes again with it (after
 * its first back-off step), keeping its subscriptions, which it makes again once in; without one,
 * the refusal goes through and the client is disconnected. At most one such handshake follows each
 * refusal: if it is refused too, whatever the reason, the client is disconnected, so a `refresh`
 * that keeps giving bad tokens costs one extra handshake, never a loop. Until `refresh()` settles
 * the client stays `handshaking`: give it a timeout of its own. Handshake callbacks and
 * `/meta/handshake` listeners see the refusal once released, then the new session.
 *
 * `onError(reason)` hears of a refresh that failed, of a new token the server refused (`reason` is
 * then its error, e.g. `403:token_expired:refresh_denied`) and of a handshake with a new token
 * refused too (`403:token_expired:handshake_denied`).
 */
export const TOKEN_CHANNEL = '/service/token';

/** The reasons of a handshake refusal (`403:<reason>:handshake_denied`) that a new token may cure. */
export const REFRESHABLE = Object.freeze(['token_expired', 'token_missing']);

export class TokenExtension {
  #token;
  #refresh;
  #onError;
  #client = null;
  #retrying = false;  // from a held refusal until the reply to the handshake with the new token
  #releasing = false; // while the held refusal goes back to the client

  constructor({ token, refresh, onError = () => {} } = {}) {
    if (typeof token !== 'string' || token === '') {
      throw new TypeError(`TokenExtension needs a token string, got ${token}`);
    }
    if (typeof refresh !== 'function') {
      throw new TypeError(`TokenExtension needs a refresh function, got ${refresh}`);
    }
    this.#token = token;
    this.#refresh = refresh;
    this.#onError = onError;
  }

  /** The token the next handshake sends. */
  get token() {
    return this.#token;
  }

  /** Replaces the token the next handshake sends (the current session keeps its own until refreshed). */
  setToken(token) {
    this.#token = token;
  }

  registered(name, client) {
    this.#client = client;
  }

  unregistered() {
    this.#client = null;
  }

  outgoing(message) {
    if (message.channel === '/meta/handshake') {
      message.ext = { ...message.ext, token: this.#token };
    }
    return message;
  }

  incoming(message) {
    if (message.channel === '/meta/handshake') {
      return this.#releasing ? message : this.#handshakeReply(message);
    }
    if (message.channel === TOKEN_CHANNEL && message.data) {
      if (message.data.action === 'refresh') {
        this.#refreshNow().then((fresh) => {
          if (fresh && this.#client) {
            this.#client.publish(TOKEN_CHANNEL, { token: fresh });
          }
        });
      } else if (message.data.action === 'refused') {
        this.#onError(message.data.error);
      }
    }
    return message;
  }

  #handshakeReply(message) {
    const retried = this.#retrying;
    this.#retrying = false;
    if (message.successful || !REFRESHABLE.includes(String(message.error).split(':')[1])) {
      return message;
    }
    if (retried) {
      this.#onError(message.error);
      return message;
    }
    if ((message.advice && message.advice.reconnect) !== 'none' || !this.#client) {
      this.#refreshNow(); // the client handshakes again by itself, as advised: with the new token, once there
      return message;
    }
    this.#retrying = true;
    this.#refreshNow().then((fresh) => {
      if (!fresh) {
        this.#retrying = false;
      }
      const client = this.#client;
      if (!client) {
        return;
      }
      // With a new token, the client handshakes again as if advised to; without one, it gets the refusal.
      const reply = fresh ? { ...message, advice: { ...message.advice, reconnect: 'handshake' } } : message;
      this.#releasing = true;
      try {
        client.receive(reply);
      } finally {
        this.#releasing = false;
      }
    });
    return null;
  }

  /** Awaits `refresh()`; its token becomes the current one. Resolves to it, or to null (told to onError). */
  async #refreshNow() {
    let fresh;
    try {
      fresh = await this.#refresh();
    } catch (x) {
      this.#onError(x);
      return null;
    }
    if (typeof fresh !== 'string' || fresh === '') {
      this.#onError(new Error('refresh gave no token'));
      return null;
    }
    this.#token = fresh;
    return fresh;
  }
}
