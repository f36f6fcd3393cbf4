import { setCookieHeaders } from '../cookies.js';
import { RequestTransport } from './request-transport.js';

/**
 * The long-polling transport: each batch is a POST of a JSON array, answered by a JSON array;
 * /meta/connect is held by the server until it has messages or its timeout passes. Uses the
 * `fetch` option, else the global fetch, with credentials so that the browser cookie travels;
 * where no browser keeps cookies (Node), the client's cookie jar keeps the cookies each
 * response sets and sends them with every request, since servers bind a session to them.
 */
export class LongPollingTransport extends RequestTransport {
  constructor() {
    super('long-polling');
  }

  accept() {
    return typeof (this.host.options().fetch || globalThis.fetch) === 'function';
  }

  async request(url, messages, signal) {
    const options = this.host.options();
    const fetchFn = options.fetch || globalThis.fetch;
    const jar = this.host.cookies();
    const headers = { 'Content-Type': 'application/json;charset=UTF-8', ...options.requestHeaders };
    const cookie = jar ? jar.header(url) : '';
    if (cookie) {
      headers.Cookie = cookie;
    }
    const response = await fetchFn(url, {
      method: 'POST',
      headers,
      body: JSON.stringify(messages),
      credentials: 'include',
      signal,
    });
    if (jar) {
      jar.store(url, setCookieHeaders(response.headers));
    }
    if (!response.ok) {
      throw { reason: `HTTP ${response.status}`, httpCode: response.status };
    }
    const replies = await response.json();
    if (!Array.isArray(replies)) {
      throw { reason: 'bad response: not a JSON array' };
    }
    return replies;
  }
}
