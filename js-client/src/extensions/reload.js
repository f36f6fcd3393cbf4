/**
 * Keeps a session across a page reload: before the page goes, `save()` (also
 * `client.reload()`, and on `pagehide` in browsers) stores the session in `sessionStorage`;
 * the reloaded page's handshake then resumes it, without a new handshake, by faking the
 * handshake reply with the stored clientId (`ext.reload: true`) and going straight to
 * /meta/connect on the stored transport. The server keeps the session for its maxInterval
 * after the last connection and accepts the clientId on a new one; when it no longer knows it,
 * it answers the connect with 402 and the client handshakes as usual. Subscriptions are
 * whatever the reloaded page subscribes to again (sent with the resumed clientId), and with
 * the ack extension the acknowledged batch survives too, so nothing is received twice.
 *
 * State older than `maxAge` ms, or stored for another URL, is ignored. A stored state is used
 * once: it is removed as soon as it is read.
 */
export class ReloadExtension {
  #storage;
  #name;
  #maxAge;
  #autoSave;
  #now;
  #client = null;
  #handshake = null; // what the last real handshake reply said that a resumed one must repeat
  #resuming = false;
  #onPageHide = () => this.save();

  constructor({ storage, name = 'bayeux.reload', maxAge = 60000, autoSave = true, now = Date.now } = {}) {
    this.#storage = storage || globalThis.sessionStorage;
    if (!this.#storage || typeof this.#storage.getItem !== 'function') {
      throw new TypeError('ReloadExtension needs a sessionStorage-like storage (getItem, setItem, removeItem)');
    }
    this.#name = name;
    this.#maxAge = maxAge;
    this.#autoSave = autoSave;
    this.#now = now;
  }

  registered(name, client) {
    this.#client = client;
    client.reload = () => this.save();
    if (this.#autoSave && typeof globalThis.addEventListener === 'function') {
      globalThis.addEventListener('pagehide', this.#onPageHide);
    }
  }

  unregistered() {
    if (typeof globalThis.removeEventListener === 'function') {
      globalThis.removeEventListener('pagehide', this.#onPageHide);
    }
    delete this.#client.reload;
    this.#client = null;
  }

  /** Stores the session for the next page; false when there is none to store. */
  save() {
    const client = this.#client;
    if (!client || !this.#handshake || !client.getClientId() || client.isDisconnected()) {
      return false;
    }
    const ack = client.getExtension('ack');
    this.#storage.setItem(this.#name, JSON.stringify({
      ...this.#handshake,
      url: client.getURL(),
      clientId: client.getClientId(),
      transport: client.getTransport(),
      ackBatch: ack && typeof ack.batch === 'number' ? ack.batch : undefined,
      savedAt: this.#now(),
    }));
    return true;
  }

  outgoing(message) {
    if (message.channel !== '/meta/handshake') {
      return message;
    }
    const state = this.#take();
    if (!state) {
      return message;
    }
    const client = this.#client;
    this.#resuming = true;
    this.#handshake = { supportedConnectionTypes: state.supportedConnectionTypes, advice: state.advice, ext: state.ext };
    const types = client.getTransportTypes().includes(state.transport) ? [state.transport] : state.supportedConnectionTypes;
    const reply = {
      id: message.id, channel: '/meta/handshake', successful: true, version: '1.0', clientId: state.clientId,
      supportedConnectionTypes: types, advice: state.advice,
      ext: { ...state.ext, reload: true, ackBatch: state.ackBatch },
    };
    queueMicrotask(() => client.receive(reply));
    return null;
  }

  incoming(message) {
    if (message.channel === '/meta/handshake' && message.successful && !(message.ext && message.ext.reload)) {
      const ext = message.ext && message.ext.ack !== undefined ? { ack: message.ext.ack } : {};
      this.#handshake = { supportedConnectionTypes: message.supportedConnectionTypes, advice: message.advice, ext };
    } else if (message.channel === '/meta/connect' && this.#resuming) {
      this.#resuming = false;
      if (!message.successful) {
        this.#handshake = null;
      }
    }
    return message;
  }

  #take() {
    let text;
    try {
      text = this.#storage.getItem(this.#name);
      this.#storage.removeItem(this.#name);
    } catch {
      return null;
    }
    let state;
    try {
      state = text && JSON.parse(text);
    } catch {
      return null;
    }
    const valid = state && typeof state.clientId === 'string' && state.url === this.#client.getURL()
      && typeof state.savedAt === 'number' && this.#now() - state.savedAt <= this.#maxAge;
    return valid ? state : null;
  }
}
