/**
 * Estimates the server's clock, wire-compatible with CometD's TimeSyncExtension: handshake and
 * connect messages carry `ext.timesync = {tc, l, o}` (client time, lag, offset); the server's
 * reply carries `{tc, ts, p, a}` and the client keeps a moving average of the last `maxSamples`
 * lags (l = (now - tc - p) / 2) and offsets (o = ts - tc - l).
 */
export class TimesyncExtension {
  #now;
  #maxSamples;
  #lags = [];
  #offsets = [];
  #lag = 0;
  #offset = 0;

  constructor({ maxSamples = 10, now = Date.now } = {}) {
    if (!(Number.isInteger(maxSamples) && maxSamples > 0)) {
      throw new TypeError(`Invalid maxSamples: ${maxSamples}`);
    }
    this.#maxSamples = maxSamples;
    this.#now = now;
  }

  /** The estimated one-way network lag (ms). */
  getNetworkLag() {
    return this.#lag;
  }

  /** The estimated server clock minus the client clock (ms). */
  getTimeOffset() {
    return this.#offset;
  }

  getTimeOffsetSamples() {
    return [...this.#offsets];
  }

  getNetworkLagSamples() {
    return [...this.#lags];
  }

  /** The estimated server time (ms since the epoch). */
  getServerTime() {
    return this.#now() + this.#offset;
  }

  /** Runs `callback` when the server's clock reaches `atServerTime` (ms or Date); returns the timer. */
  setTimeout(callback, atServerTime) {
    const at = atServerTime instanceof Date ? atServerTime.getTime() : atServerTime;
    return setTimeout(callback, Math.max(0, at - this.getServerTime()));
  }

  outgoing(message) {
    if (message.channel === '/meta/handshake' || message.channel === '/meta/connect') {
      message.ext = { ...message.ext, timesync: { tc: this.#now(), l: this.#lag, o: this.#offset } };
    }
    return message;
  }

  incoming(message) {
    const sync = message.ext && message.ext.timesync;
    if ((message.channel === '/meta/handshake' || message.channel === '/meta/connect') && message.successful
        && sync && typeof sync.tc === 'number' && typeof sync.ts === 'number' && typeof sync.p === 'number') {
      const now = this.#now();
      const lag = Math.max(0, (now - sync.tc - sync.p) / 2);
      const offset = sync.ts - sync.tc - lag;
      this.#lag = push(this.#lags, lag, this.#maxSamples);
      this.#offset = push(this.#offsets, offset, this.#maxSamples);
    }
    return message;
  }
}

/** Adds a sample, keeps the last `max`, returns their rounded average. */
function push(samples, value, max) {
  samples.push(value);
  if (samples.length > max) {
    samples.shift();
  }
  return Math.round(samples.reduce((a, b) => a + b, 0) / samples.length);
}
