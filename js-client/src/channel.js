/** Channel names: validation and the wildcard patterns that match a channel. */

const SEGMENT = /^[^/*]+$/;

/** True when `name` is a valid channel name or pattern (`/a/b`, `/a/*`, `/a/**`). */
export function isValidChannel(name) {
  if (typeof name !== 'string' || name.length < 2 || name[0] !== '/' || name.endsWith('/')) {
    return false;
  }
  const segments = name.slice(1).split('/');
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i];
    const last = i === segments.length - 1;
    if (!(SEGMENT.test(s) || (last && (s === '*' || s === '**')))) {
      return false;
    }
  }
  return true;
}

/** Throws a TypeError naming the bad value when `name` is not a valid channel. */
export function requireChannel(name, what = 'channel') {
  if (!isValidChannel(name)) {
    throw new TypeError(`Invalid ${what}: ${JSON.stringify(name)}`);
  }
  return name;
}

export const isMeta = (channel) => typeof channel === 'string' && channel.startsWith('/meta/');
export const isService = (channel) => typeof channel === 'string' && channel.startsWith('/service/');
export const isWildcard = (channel) => channel.endsWith('/*');

/**
 * The channel itself followed by every pattern that matches it, nearest first:
 * `/a/b/c` gives `/a/b/c`, `/a/b/*`, `/a/b/**`, `/a/**`, `/**`.
 */
export function matchingPatterns(channel) {
  const result = [channel];
  const segments = channel.slice(1).split('/');
  const prefix = '/' + segments.slice(0, -1).join('/');
  result.push((segments.length > 1 ? prefix + '/' : '/') + '*');
  for (let i = segments.length - 1; i >= 0; i--) {
    result.push('/' + segments.slice(0, i).map((s) => s + '/').join('') + '**');
  }
  return result;
}
