/**
 * Messages waiting for the link to come back, oldest first, at most `max()` of them:
 * `add` returns the message it pushed out to make room (the oldest), or null.
 */
export class Outbox {
  #messages = [];
  #max;

  constructor(max) {
    this.#max = max;
  }

  get size() {
    return this.#messages.length;
  }

  add(message) {
    this.#messages.push(message);
    return this.#messages.length > this.#max() ? this.#messages.shift() : null;
  }

  /** Takes every message matching `predicate` out, in order. */
  take(predicate = () => true) {
    const taken = this.#messages.filter(predicate);
    this.#messages = this.#messages.filter((m) => !predicate(m));
    return taken;
  }

  some(predicate) {
    return this.#messages.some(predicate);
  }
}
