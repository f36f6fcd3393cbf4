import { BAYEUX_VERSION } from './defaults.js';

/**
 * Which registered transport the session uses: the one negotiated with the options (and the
 * server's types, once known), and the fallback to the next when one cannot open. A transport
 * that failed to open stays excluded until a success, so the fallback does not go round.
 */
export class TransportChoice {
  #config;
  #log;
  #transports;
  #onChange;
  #excluded = new Set();
  #current = null; // { name, transport }

  /** `onChange()` is called when the transport in use changes. */
  constructor({ config, log, transports, onChange }) {
    this.#config = config;
    this.#log = log;
    this.#transports = transports;
    this.#onChange = onChange;
  }

  get name() {
    return this.#current ? this.#current.name : null;
  }

  /** The transport in use (there is one from the first handshake on). */
  get transport() {
    return this.#current.transport;
  }

  /** For a new session: every transport may be tried again, from a clean state. */
  reset() {
    this.#excluded.clear();
    for (const name of this.#transports.names()) {
      const transport = this.#transports.find(name);
      if (typeof transport.reset === 'function') {
        transport.reset();
      }
    }
  }

  clearExcluded() {
    this.#excluded.clear();
  }

  /** The connection types a handshake offers. */
  offered() {
    return this.#transports.names().filter((n) => this.#config().transports.includes(n) && !this.#excluded.has(n));
  }

  negotiate(serverTypes) {
    const { url, transports } = this.#config();
    const crossDomain = typeof location !== 'undefined' && !!location.host && !url.includes('//' + location.host + '/');
    return this.#transports.negotiate({ allowed: transports, excluded: this.#excluded, serverTypes, version: BAYEUX_VERSION, crossDomain, url });
  }

  use(chosen) {
    if (this.#current && this.#current.name !== chosen.name) {
      this.#log.info(`Transport ${this.#current.name} -> ${chosen.name}`);
      this.#current.transport.abort();
    }
    const changed = !this.#current || this.#current.name !== chosen.name;
    this.#current = chosen;
    if (changed) {
      this.#onChange();
    }
  }

  /** The current transport could not open: try the next one. True when there is one. */
  fallBack(failure) {
    this.#excluded.add(this.#current.name);
    const next = this.negotiate();
    if (!next) {
      return false;
    }
    this.#log.info(`${this.#current.name} failed (${failure.reason}): falling back to ${next.name}`);
    this.use(next);
    return true;
  }

  abort() {
    if (this.#current) {
      this.#current.transport.abort();
    }
  }
}
