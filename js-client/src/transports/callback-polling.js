import { RequestTransport } from './request-transport.js';

/**
 * The callback-polling (JSONP) transport, for old environments without CORS: each batch is a
 * GET of a script, `url?jsonp=<callback>&message=<JSON>`, that calls the callback with the
 * replies. Only used when listed in the `transports` option; the server must enable it.
 * Batches whose URL would pass maxURILength are sent one message per request.
 *
 * The `jsonpLoader` option `(url, callbackName, signal, cookieJar) => Promise<messages>`
 * replaces the script element (e.g. in Node, or for tests); outside a browser it gets the
 * client's cookie jar, whose cookies it should send and keep as a script element would.
 */
export class CallbackPollingTransport extends RequestTransport {
  #prefix = `__bayeux_jsonp_${Math.random().toString(36).slice(2, 10)}_`;
  #counter = 0;

  constructor() {
    super('callback-polling');
  }

  accept() {
    return typeof this.host.options().jsonpLoader === 'function' || typeof document !== 'undefined';
  }

  send(messages, metaConnect) {
    const { maxURILength } = this.host.options();
    if (messages.length > 1 && this.#buildUrl(this.url(messages), messages, 'x').length > maxURILength) {
      for (const message of messages) {
        super.send([message], metaConnect);
      }
    } else {
      super.send(messages, metaConnect);
    }
  }

  request(url, messages, signal) {
    const callback = this.#prefix + ++this.#counter;
    const src = this.#buildUrl(url, messages, callback);
    const loader = this.host.options().jsonpLoader || loadScript;
    return loader(src, callback, signal, this.host.cookies());
  }

  #buildUrl(url, messages, callback) {
    return `${url}${url.includes('?') ? '&' : '?'}jsonp=${callback}&message=${encodeURIComponent(JSON.stringify(messages))}`;
  }
}

/** Loads a JSONP script with a script element; resolves with what it passes to the callback. */
function loadScript(src, callback, signal) {
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    const cleanup = () => {
      delete globalThis[callback];
      script.remove();
    };
    globalThis[callback] = (replies) => {
      cleanup();
      resolve(Array.isArray(replies) ? replies : [replies]);
    };
    script.onerror = () => {
      cleanup();
      reject({ reason: 'script load failed' });
    };
    signal.addEventListener('abort', () => {
      cleanup();
      reject({ reason: 'aborted' });
    });
    script.async = true;
    script.src = src;
    (document.head || document.documentElement).appendChild(script);
  });
}
