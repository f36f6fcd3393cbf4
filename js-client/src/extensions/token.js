/**
 * Token authentication, client side (the server side is bayeux-auth-jwt): puts the current token
 * in every handshake's `ext.token`, and when the server asks for a new one on /service/token
 * (`{action: 'refresh'}`), awaits `refresh()` and publishes `{token}` there, without reconnecting.
 *
 * ```js
 * client.registerExtension('token', new TokenExtension({ token, refresh: () => fetchToken() }));
 * ```
 *
 * A `refresh` that rejects or resolves to nothing sends nothing: the server then disconnects the
 * session once the old token's grace period ends. `onError(reason)` hears of both, and of a new
 * token the server refused (`reason` is then its error, e.g. `403:token_expired:refresh_denied`).
 */
export const TOKEN_CHANNEL = '/service/token';

export class TokenExtension {
  #token;
  #refresh;
  #onError;
  #client = null;

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
    if (message.channel === TOKEN_CHANNEL && message.data) {
      if (message.data.action === 'refresh') {
        this.#refreshNow();
      } else if (message.data.action === 'refused') {
        this.#onError(message.data.error);
      }
    }
    return message;
  }

  async #refreshNow() {
    let fresh;
    try {
      fresh = await this.#refresh();
    } catch (x) {
      this.#onError(x);
      return;
    }
    if (typeof fresh !== 'string' || fresh === '') {
      this.#onError(new Error('refresh gave no token'));
      return;
    }
    this.#token = fresh;
    if (this.#client) {
      this.#client.publish(TOKEN_CHANNEL, { token: fresh });
    }
  }
}
