import { requireLogLevel } from './logger.js';

const POSITIVE = ['backoffIncrement', 'maxBackoff', 'maxNetworkDelay', 'maxConnections', 'maxOutboxSize', 'maxURILength'];

/**
 * `current` updated with `update` (an object, or a string taken as the URL), checked: a bad
 * value throws a TypeError that names it. `advice` is merged field by field.
 */
export function mergeConfig(current, update) {
  const changes = typeof update === 'string' ? { url: update } : update;
  if (!changes || typeof changes !== 'object') {
    throw new TypeError(`Invalid configuration: ${update}`);
  }
  const next = { ...current, ...changes, advice: { ...current.advice, ...(changes.advice || {}) } };
  if (next.url !== undefined && (typeof next.url !== 'string' || !/^(https?|wss?):\/\//.test(next.url))) {
    throw new TypeError(`Invalid url: ${JSON.stringify(next.url)}`);
  }
  for (const key of POSITIVE) {
    if (!(typeof next[key] === 'number' && next[key] > 0)) {
      throw new TypeError(`Invalid ${key}: ${JSON.stringify(next[key])}; must be a positive number`);
    }
  }
  if (next.maxBackoff < next.backoffIncrement) {
    throw new TypeError(`Invalid maxBackoff: ${next.maxBackoff} is less than backoffIncrement ${next.backoffIncrement}`);
  }
  if (typeof next.connectTimeout !== 'number' || next.connectTimeout < 0) {
    throw new TypeError(`Invalid connectTimeout: ${JSON.stringify(next.connectTimeout)}`);
  }
  const jar = next.cookieJar;
  if (jar !== undefined && jar !== null && !(typeof jar === 'object' && typeof jar.header === 'function' && typeof jar.store === 'function')) {
    throw new TypeError(`Invalid cookieJar: ${jar}; must be a CookieJar (header and store functions) or null`);
  }
  requireLogLevel(next.logLevel);
  if (!Array.isArray(next.transports) || next.transports.some((t) => typeof t !== 'string')) {
    throw new TypeError(`Invalid transports: ${JSON.stringify(next.transports)}`);
  }
  if (!next.requestHeaders || typeof next.requestHeaders !== 'object') {
    throw new TypeError(`Invalid requestHeaders: ${JSON.stringify(next.requestHeaders)}`);
  }
  for (const key of ['WebSocket', 'fetch', 'jsonpLoader']) {
    if (next[key] !== undefined && typeof next[key] !== 'function') {
      throw new TypeError(`Invalid ${key}: ${next[key]}; must be a function`);
    }
  }
  if (next.url) {
    next.url = next.url.replace(/^ws/, 'http');
  }
  return next;
}
