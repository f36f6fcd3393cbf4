// The pieces that need no server: channel names, configuration, extension order, the outbox,
// timesync arithmetic.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isValidChannel, matchingPatterns } from '../src/channel.js';
import { mergeConfig } from '../src/config.js';
import { DEFAULTS } from '../src/defaults.js';
import { ExtensionChain } from '../src/extensions.js';
import { Outbox } from '../src/outbox.js';
import { TimesyncExtension } from '../src/extensions/timesync.js';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

describe('channels', () => {
  it('a channel is matched by itself and its wildcard ancestors, nearest first', () => {
    assert.deepEqual(matchingPatterns('/a/b/c'), ['/a/b/c', '/a/b/*', '/a/b/**', '/a/**', '/**']);
    assert.deepEqual(matchingPatterns('/a'), ['/a', '/*', '/**']);
  });

  it('wildcards are valid only as the last segment', () => {
    for (const ok of ['/a', '/a/b', '/a/*', '/a/**', '/**']) {
      assert.equal(isValidChannel(ok), true, ok);
    }
    for (const bad of ['', '/', 'a', '/a/', '/a//b', '/a/*/b', '/a/b*', 7, null]) {
      assert.equal(isValidChannel(bad), false, String(bad));
    }
  });
});

describe('configuration', () => {
  it('merges over the defaults, advice field by field', () => {
    const config = mergeConfig(DEFAULTS, { url: 'ws://h/cometd', advice: { interval: 5 } });
    assert.equal(config.url, 'http://h/cometd', 'a ws URL is kept as its http form');
    assert.equal(config.backoffIncrement, 1000);
    assert.equal(config.maxBackoff, 60000);
    assert.deepEqual(config.advice, { timeout: 60000, interval: 5, reconnect: 'retry', maxInterval: 0 });
    assert.equal(mergeConfig(DEFAULTS, 'https://h/x').url, 'https://h/x');
  });

  it('names the bad value', () => {
    assert.throws(() => mergeConfig(DEFAULTS, { maxNetworkDelay: -1 }), /Invalid maxNetworkDelay: -1/);
    assert.throws(() => mergeConfig(DEFAULTS, { transports: 'websocket' }), /Invalid transports: "websocket"/);
    assert.throws(() => mergeConfig(DEFAULTS, { fetch: 'no' }), /Invalid fetch: no/);
    assert.throws(() => mergeConfig(DEFAULTS, null), /Invalid configuration/);
  });
});

describe('extensions', () => {
  it('run in registration order for incoming messages and in reverse for outgoing ones', () => {
    const chain = new ExtensionChain(quiet);
    const order = [];
    for (const name of ['a', 'b']) {
      chain.register(name, { incoming: () => { order.push(`in ${name}`); }, outgoing: () => { order.push(`out ${name}`); } });
    }
    chain.incoming({ channel: '/x' });
    chain.outgoing({ channel: '/x' });
    assert.deepEqual(order, ['in a', 'in b', 'out b', 'out a']);
  });

  it('a null drops the message, a throw is skipped', () => {
    const chain = new ExtensionChain(quiet);
    chain.register('thrower', { incoming: () => { throw new Error('boom'); } });
    chain.register('dropper', { incoming: (m) => (m.drop ? null : m) });
    assert.equal(chain.incoming({ channel: '/x', drop: true }), null);
    assert.deepEqual(chain.incoming({ channel: '/x' }), { channel: '/x' });
    assert.equal(chain.unregister('dropper'), true);
    assert.equal(chain.unregister('dropper'), false);
  });
});

describe('outbox', () => {
  it('keeps the newest messages up to its bound and hands back the oldest it dropped', () => {
    let max = 2;
    const outbox = new Outbox(() => max);
    assert.equal(outbox.add(1), null);
    assert.equal(outbox.add(2), null);
    assert.equal(outbox.add(3), 1);
    assert.deepEqual(outbox.take((m) => m === 2), [2]);
    assert.deepEqual(outbox.take(), [3]);
    assert.equal(outbox.size, 0);
  });
});

describe('timesync', () => {
  it('computes lag and offset from the server reply as CometD does', () => {
    let now = 1000;
    const timesync = new TimesyncExtension({ now: () => now });
    const sent = timesync.outgoing({ channel: '/meta/handshake' });
    assert.deepEqual(sent.ext.timesync, { tc: 1000, l: 0, o: 0 });
    // Sent at 1000, server got it at 5050 by its clock and took 10 ms; back at 1110.
    now = 1110;
    timesync.incoming({ channel: '/meta/handshake', successful: true, ext: { timesync: { tc: 1000, ts: 5050, p: 10 } } });
    assert.equal(timesync.getNetworkLag(), 50); // (1110 - 1000 - 10) / 2
    assert.equal(timesync.getTimeOffset(), 4000); // 5050 - 1000 - 50
    assert.equal(timesync.getServerTime(), 5110);
  });
});
