/**
 * Puts the time of sending in every outgoing message's `timestamp` field, as CometD's
 * TimeStampExtension does (an RFC 1123 date in GMT, e.g. "Tue, 05 Mar 2024 13:03:27 GMT").
 */
export class TimestampExtension {
  #now;

  /** `now` returns milliseconds since the epoch; injectable for tests. */
  constructor({ now = Date.now } = {}) {
    this.#now = now;
  }

  outgoing(message) {
    message.timestamp = new Date(this.#now()).toUTCString();
    return message;
  }
}
