/**
 * The transports a client may use, in preference order. A transport is an object with
 * `registered(name, host)`, `accept(version, crossDomain, url)`, `send(messages, metaConnect)`,
 * `abort()` and optionally `unregistered()`; see `types/index.d.ts` for the contract.
 */
export class TransportRegistry {
  #entries = [];

  add(name, transport, index) {
    if (typeof name !== 'string' || !name) {
      throw new TypeError(`Invalid transport name: ${JSON.stringify(name)}`);
    }
    if (!transport || typeof transport.send !== 'function' || typeof transport.accept !== 'function') {
      throw new TypeError(`Invalid transport ${name}: it needs accept() and send()`);
    }
    if (this.find(name)) {
      return false;
    }
    const at = typeof index === 'number' ? Math.max(0, Math.min(index, this.#entries.length)) : this.#entries.length;
    this.#entries.splice(at, 0, { name, transport });
    return true;
  }

  remove(name) {
    const index = this.#entries.findIndex((e) => e.name === name);
    if (index < 0) {
      return null;
    }
    return this.#entries.splice(index, 1)[0].transport;
  }

  find(name) {
    const entry = this.#entries.find((e) => e.name === name);
    return entry ? entry.transport : null;
  }

  names() {
    return this.#entries.map((e) => e.name);
  }

  /**
   * The first transport, in this registry's order, that is in `allowed` (the client's
   * configured list), not in `excluded`, in `serverTypes` when given, and that accepts.
   */
  negotiate({ allowed, excluded, serverTypes, version, crossDomain, url }) {
    for (const { name, transport } of this.#entries) {
      if (allowed.includes(name) && !excluded.has(name) && (!serverTypes || serverTypes.includes(name))
          && transport.accept(version, crossDomain, url)) {
        return { name, transport };
      }
    }
    return null;
  }
}
