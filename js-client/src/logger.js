/** A leveled logger over `console` (or an injected sink with the same methods). */

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, off: 100 };

export function requireLogLevel(level) {
  if (!(level in LEVELS)) {
    throw new TypeError(`Invalid logLevel: ${JSON.stringify(level)}; one of ${Object.keys(LEVELS).join(', ')}`);
  }
  return level;
}

/** `config` is read on every call, so `configure({logLevel})` takes effect at once. */
export function createLogger(config) {
  const log = (level) => (...args) => {
    const { logLevel, logger } = config();
    if (LEVELS[level] >= LEVELS[logLevel]) {
      const sink = logger || console;
      (sink[level] || sink.log).call(sink, '[bayeux]', ...args);
    }
  };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}
