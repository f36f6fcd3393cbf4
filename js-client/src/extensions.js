/**
 * The extensions, by name. Incoming messages go through them in registration order,
 * outgoing ones in reverse order. A method returning null drops the message, one returning
 * undefined keeps it as it is, one that throws is logged and skipped.
 */
export class ExtensionChain {
  #entries = [];
  #log;

  constructor(log) {
    this.#log = log;
  }

  register(name, extension, client) {
    if (typeof name !== 'string' || !name) {
      throw new TypeError(`Invalid extension name: ${JSON.stringify(name)}`);
    }
    if (!extension || typeof extension !== 'object') {
      throw new TypeError(`Invalid extension ${name}: ${extension}`);
    }
    if (this.#entries.some((e) => e.name === name)) {
      this.#log.info(`Extension ${name} is already registered`);
      return false;
    }
    this.#entries.push({ name, extension });
    if (typeof extension.registered === 'function') {
      extension.registered(name, client);
    }
    return true;
  }

  unregister(name) {
    const index = this.#entries.findIndex((e) => e.name === name);
    if (index < 0) {
      return false;
    }
    const [{ extension }] = this.#entries.splice(index, 1);
    if (typeof extension.unregistered === 'function') {
      extension.unregistered();
    }
    return true;
  }

  get(name) {
    const entry = this.#entries.find((e) => e.name === name);
    return entry ? entry.extension : null;
  }

  incoming(message) {
    for (const entry of [...this.#entries]) {
      message = this.#apply(entry, 'incoming', message);
      if (message === null) {
        return null;
      }
    }
    return message;
  }

  outgoing(message) {
    const entries = [...this.#entries];
    for (let i = entries.length - 1; i >= 0; i--) {
      message = this.#apply(entries[i], 'outgoing', message);
      if (message === null) {
        return null;
      }
    }
    return message;
  }

  #apply({ name, extension }, direction, message) {
    const fn = extension[direction];
    if (typeof fn !== 'function') {
      return message;
    }
    try {
      const result = fn.call(extension, message);
      return result === undefined ? message : result;
    } catch (x) {
      this.#log.warn(`Extension ${name} threw on ${direction} message`, message, x);
      return message;
    }
  }
}
