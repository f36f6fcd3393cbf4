/**
 * What the HTTP transports share: one request per batch, at most maxConnections in flight,
 * one of them kept for the held /meta/connect; batches that find no free connection wait
 * and leave together. A request may take maxNetworkDelay (plus the held time for
 * /meta/connect) before it is aborted. Subclasses implement `request(url, messages, signal)`,
 * returning a promise of the reply messages or rejecting with a failure object.
 */
export class RequestTransport {
  #name;
  #host = null;
  #inFlight = new Set(); // { controller, timer } of requests other than /meta/connect
  #connect = null;       // the /meta/connect request in flight
  #waiting = [];         // message batches waiting for a free connection

  constructor(name) {
    this.#name = name;
  }

  registered(name, host) {
    this.#name = name;
    this.#host = host;
  }

  get name() {
    return this.#name;
  }

  get host() {
    return this.#host;
  }

  accept() {
    return true;
  }

  send(messages, metaConnect) {
    if (metaConnect) {
      this.#connect = this.#start(messages, true);
      return;
    }
    const max = Math.max(1, this.#host.options().maxConnections - 1);
    if (this.#inFlight.size < max) {
      this.#inFlight.add(this.#start(messages, false));
    } else {
      this.#waiting.push(...messages);
    }
  }

  abort() {
    const requests = [...this.#inFlight];
    if (this.#connect) {
      requests.push(this.#connect);
    }
    this.#inFlight.clear();
    this.#connect = null;
    this.#waiting = [];
    for (const request of requests) {
      request.aborted = true;
      this.#host.timers.clearTimeout(request.timer);
      request.controller.abort();
    }
  }

  reset() {
    this.abort();
  }

  /** The URL for a batch: with `/connect` and the like appended for a single meta message when configured. */
  url(messages) {
    const { url, appendMessageTypeToURL } = this.#host.options();
    if (appendMessageTypeToURL && messages.length === 1 && messages[0].channel.startsWith('/meta/') && !url.includes('?')) {
      return url.replace(/\/+$/, '') + '/' + messages[0].channel.slice('/meta/'.length);
    }
    return url;
  }

  #start(messages, metaConnect) {
    const options = this.#host.options();
    const controller = new AbortController();
    const request = { controller, timer: null, aborted: false, timedOut: false };
    const delay = options.maxNetworkDelay + (metaConnect ? this.#host.advice().timeout : 0);
    request.timer = this.#host.timers.setTimeout(() => {
      request.timedOut = true;
      controller.abort();
    }, delay);
    Promise.resolve()
      .then(() => this.request(this.url(messages), messages, controller.signal))
      .then((replies) => {
        this.#finish(request, metaConnect);
        if (request.aborted) {
          return;
        }
        const replied = new Set(replies.filter((m) => m.id !== undefined).map((m) => m.channel + '\u0000' + m.id));
        const unanswered = messages.filter((m) => m.id !== undefined && !replied.has(m.channel + '\u0000' + m.id));
        this.#host.receive(replies);
        if (unanswered.length) {
          this.#host.failure(unanswered, { reason: 'no reply', transport: this.#name });
        }
      }, (error) => {
        this.#finish(request, metaConnect);
        if (request.aborted) {
          return;
        }
        const failure = request.timedOut
          ? { reason: 'timeout' }
          : error && error.reason ? error : { reason: 'network failure', exception: error };
        this.#host.failure(messages, { ...failure, transport: this.#name });
      });
    return request;
  }

  #finish(request, metaConnect) {
    this.#host.timers.clearTimeout(request.timer);
    if (metaConnect) {
      if (this.#connect === request) {
        this.#connect = null;
      }
    } else {
      this.#inFlight.delete(request);
    }
    if (!request.aborted && this.#waiting.length) {
      const waiting = this.#waiting;
      this.#waiting = [];
      this.send(waiting, false);
    }
  }
}
