// Shared by the Node tests of the Spring chat: its endpoint, and the npm packages they borrow from
// interop-tests (its locked node_modules: SpringChatNodeIT runs `npm ci` there when it is missing).
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

export const URL = process.env.BAYEUX_URL;
if (!URL) {
  throw new Error('BAYEUX_URL is not set: run these tests through SpringChatNodeIT (mvn verify -pl examples/spring-chat -am)');
}

const interop = createRequire(new globalThis.URL('../../../../../interop-tests/src/test/node/package.json', import.meta.url));

/** Imports an npm package installed in interop-tests/src/test/node. */
export function load(name) {
  return import(pathToFileURL(interop.resolve(name)).href);
}

/** Resolves with what `start(resolve)` hands over; rejects after `ms` naming `what`. */
export function within(what, start, ms = 10000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Timed out after ${ms} ms waiting for ${what}`)), ms);
    start((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
}

/** Messages as they arrive, and a bounded wait for the next one. */
export class Inbox {
  #messages = [];
  #waiting = [];

  push(message) {
    const waiter = this.#waiting.shift();
    if (waiter) {
      waiter(message);
    } else {
      this.#messages.push(message);
    }
  }

  next(what) {
    return this.#messages.length ? Promise.resolve(this.#messages.shift()) : within(what, (resolve) => this.#waiting.push(resolve));
  }
}
