/**
 * Acknowledged delivery, wire-compatible with CometD's AckExtension: the client asks for it in
 * the handshake (`ext.ack: true`); when the server agrees, every /meta/connect tells it the
 * last batch received (`ext.ack: n`), and the server sends again whatever a lost reply carried.
 *
 * ```js
 * client.registerExtension('ack', new AckExtension());
 * ```
 */
export class AckExtension {
  #serverSupportsAcks = false;
  #batch = 0;
  #enabled = true;

  constructor({ enabled = true } = {}) {
    this.#enabled = enabled;
  }

  /** True when the server agreed in the last handshake. */
  get serverSupportsAcks() {
    return this.#serverSupportsAcks;
  }

  /** The number of the last batch received (what the next /meta/connect acknowledges). */
  get batch() {
    return this.#batch;
  }

  setEnabled(enabled) {
    this.#enabled = !!enabled;
  }

  outgoing(message) {
    if (message.channel === '/meta/handshake') {
      message.ext = { ...message.ext, ack: this.#enabled };
    } else if (message.channel === '/meta/connect' && this.#serverSupportsAcks) {
      message.ext = { ...message.ext, ack: this.#batch };
    }
    return message;
  }

  incoming(message) {
    const ext = message.ext;
    if (message.channel === '/meta/handshake' && message.successful) {
      const ack = ext && ext.ack;
      this.#serverSupportsAcks = this.#enabled && (ack === true || (ack && ack.enabled === true));
      // A session resumed after a reload keeps counting where the page left off.
      this.#batch = ext && ext.reload === true && typeof ext.ackBatch === 'number' ? ext.ackBatch
        : ack && typeof ack.batch === 'number' ? ack.batch : 0;
    } else if (message.channel === '/meta/connect' && message.successful && ext && typeof ext.ack === 'number') {
      this.#batch = ext.ack;
    }
    return message;
  }
}
