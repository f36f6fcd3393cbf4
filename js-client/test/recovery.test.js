// History and recovery (docs/history.md): the rules of RecoveryExtension on hand-made messages,
// the client's re-handshake on 409::queue_full against an in-process fake server, and (further
// down) recovery over real sockets against the demo server with history on /chat/**.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RecoveryExtension } from '../src/index.js';
import { RecoveryExtension as FromPath } from '../src/extensions/recovery.js';
import { FakeServer } from './support/fake-server.js';
import { recorder, waitFor, callback } from './support/util.js';

const ROOM = '/chat/room';
const at = (offset, epoch = 'e1') => ({ offset, epoch });
const broadcast = (channel, data, position) => ({ channel, data, ext: { position } });

/** An extension with recording callbacks: `gaps` and `recovered` hold [channel, reason or count] pairs. */
function recording(options = {}) {
  const gaps = [];
  const recovered = [];
  const extension = new RecoveryExtension({
    onGap: (channel, reason) => gaps.push([channel, reason]),
    onRecovered: (channel, replayed) => recovered.push([channel, replayed]),
    ...options,
  });
  return { extension, gaps, recovered };
}

/** Subscribes through the extension as the client would: the message out, then `reply` back. */
function subscribeThrough(extension, subscription, history, id = String(Math.random())) {
  const sent = extension.outgoing({ id, channel: '/meta/subscribe', subscription });
  extension.incoming({ id, channel: '/meta/subscribe', successful: true, subscription, ...(history ? { ext: { history } } : {}) });
  return sent;
}

describe('RecoveryExtension rules', () => {
  it('is the class the package exports', () => {
    assert.equal(FromPath, RecoveryExtension);
  });

  it('drops a message at or before the last position of the same epoch, and takes one of another epoch', () => {
    const { extension } = recording();
    const incoming = (position, data = position.offset) => extension.incoming(broadcast(ROOM, data, position));
    assert.ok(incoming(at(5)), 'the first message');
    assert.ok(incoming(at(6)), 'the next one');
    assert.equal(incoming(at(6), 'again'), null, 'the same offset twice');
    assert.equal(incoming(at(4)), null, 'an older offset');
    assert.deepEqual(extension.positions(), { [ROOM]: at(6) });
    assert.ok(incoming(at(2, 'e2')), 'a lower offset of another epoch');
    assert.deepEqual(extension.positions(), { [ROOM]: at(2, 'e2') }, 'the new epoch is remembered');
    assert.equal(incoming(at(2, 'e2')), null, 'offsets of the new epoch are compared with each other');
    assert.ok(incoming(at(3, 'e2')));
  });

  it('passes messages without a position, meta messages and other channels untouched', () => {
    const { extension } = recording();
    assert.ok(extension.incoming(broadcast(ROOM, 'a', at(5))));
    const plain = { channel: ROOM, data: 'no position' };
    assert.equal(extension.incoming(plain), plain);
    const malformed = { channel: ROOM, data: 'x', ext: { position: { offset: '3', epoch: 'e1' } } };
    assert.equal(extension.incoming(malformed), malformed, 'a position whose offset is not a number is ignored');
    assert.ok(extension.incoming(broadcast('/chat/other', 'b', at(1))), 'positions are per channel');
    const connect = { channel: '/meta/connect', successful: true, ext: { position: at(1) } };
    assert.equal(extension.incoming(connect), connect);
    assert.deepEqual(extension.positions(), { [ROOM]: at(5), '/chat/other': at(1) });
  });

  it('asks to recover every subscribed channel it has a position for, merged into the ext, string or array', () => {
    const { extension } = recording();
    extension.incoming(broadcast(ROOM, 'a', at(7)));
    extension.incoming(broadcast('/chat/b', 'b', at(3, 'eb')));
    const single = extension.outgoing({ id: '1', channel: '/meta/subscribe', subscription: ROOM, ext: { token: 't' } });
    assert.deepEqual(single.ext, { token: 't', recover: { [ROOM]: at(7) } }, 'other ext fields stay');
    const many = extension.outgoing({ id: '2', channel: '/meta/subscribe', subscription: [ROOM, '/chat/b', '/chat/new', '/chat/*'] });
    assert.deepEqual(many.ext, { recover: { [ROOM]: at(7), '/chat/b': at(3, 'eb') } }, 'only channels with a position, never a wildcard');
    const own = extension.outgoing({ id: '3', channel: '/meta/subscribe', subscription: ROOM, ext: { recover: { [ROOM]: at(1) } } });
    assert.deepEqual(own.ext.recover, { [ROOM]: at(1) }, 'what the application asked for itself wins');
    const none = extension.outgoing({ id: '4', channel: '/meta/subscribe', subscription: '/chat/new' });
    assert.equal(none.ext, undefined, 'nothing to recover: no ext added');
    const publish = extension.outgoing({ id: '5', channel: ROOM, data: 'x' });
    assert.equal(publish.ext, undefined);
  });

  it('recovered: calls onRecovered and keeps its position, so replayed messages after the reply are delivered', () => {
    const { extension, gaps, recovered } = recording();
    extension.incoming(broadcast(ROOM, 'seen', at(10)));
    subscribeThrough(extension, ROOM, { [ROOM]: { ...at(13), recovered: true, replayed: 3 } });
    assert.deepEqual(recovered, [[ROOM, 3]]);
    assert.deepEqual(gaps, []);
    assert.deepEqual(extension.positions(), { [ROOM]: at(10) }, 'not moved to the reply\'s 13');
    for (const offset of [11, 12, 13]) {
      assert.ok(extension.incoming(broadcast(ROOM, offset, at(offset))), `replayed ${offset} is delivered`);
    }
    assert.equal(extension.incoming(broadcast(ROOM, 12, at(12))), null, 'and only once');
  });

  it('not recovered: calls onGap with the reason and takes the reply\'s position, even a lower one', () => {
    const { extension, gaps, recovered } = recording();
    extension.incoming(broadcast(ROOM, 'seen', at(10)));
    extension.incoming(broadcast('/chat/ahead', 'seen', at(50)));
    subscribeThrough(extension, [ROOM, '/chat/ahead'], {
      [ROOM]: { ...at(400), recovered: false, reason: 'trimmed' },
      '/chat/ahead': { ...at(20), recovered: false, reason: 'ahead' },
    });
    assert.deepEqual(gaps, [[ROOM, 'trimmed'], ['/chat/ahead', 'ahead']]);
    assert.deepEqual(recovered, []);
    assert.deepEqual(extension.positions(), { [ROOM]: at(400), '/chat/ahead': at(20) });
    assert.ok(extension.incoming(broadcast('/chat/ahead', 'new', at(21))), 'a new message past the reply is delivered');
    assert.equal(extension.incoming(broadcast(ROOM, 'old', at(399))), null);
  });

  it('a recovery asked and answered without a history entry is a no_history gap', () => {
    const { extension, gaps } = recording();
    extension.incoming(broadcast(ROOM, 'seen', at(10)));
    subscribeThrough(extension, ROOM, undefined);
    assert.deepEqual(gaps, [[ROOM, 'no_history']]);
    assert.deepEqual(extension.positions(), {});
  });

  it('without recovery asked, a reply moves the position forward or to another epoch, never backwards', () => {
    const { extension, gaps, recovered } = recording({ enabled: true });
    subscribeThrough(extension, ROOM, { [ROOM]: at(100) });
    assert.deepEqual(extension.positions(), { [ROOM]: at(100) }, 'a first subscription learns where the channel is');
    assert.equal(extension.incoming(broadcast(ROOM, 'before', at(100))), null, 'published before the subscription');
    extension.setEnabled(false); // subscribe again without asking recovery
    subscribeThrough(extension, ROOM, { [ROOM]: at(90) });
    assert.deepEqual(extension.positions(), { [ROOM]: at(100) }, 'not backwards');
    subscribeThrough(extension, ROOM, { [ROOM]: at(120) });
    assert.deepEqual(extension.positions(), { [ROOM]: at(120) }, 'forwards');
    subscribeThrough(extension, ROOM, { [ROOM]: at(5, 'e2') });
    assert.deepEqual(extension.positions(), { [ROOM]: at(5, 'e2') }, 'another epoch');
    assert.deepEqual([gaps, recovered], [[], []]);
  });

  it('an unsubscribe forgets the channel\'s position, and those no remaining subscription covers', () => {
    const { extension } = recording();
    subscribeThrough(extension, ROOM, { [ROOM]: at(1) });
    subscribeThrough(extension, '/chat/**', undefined);
    extension.incoming(broadcast('/chat/other', 'via the wildcard', at(4)));
    extension.incoming({ id: 'u1', channel: '/meta/unsubscribe', successful: true, subscription: ROOM });
    assert.deepEqual(extension.positions(), { '/chat/other': at(4) });
    const sent = extension.outgoing({ id: 's', channel: '/meta/subscribe', subscription: ROOM });
    assert.equal(sent.ext, undefined, 'no recovery of a channel left');
    extension.incoming({ id: 'u2', channel: '/meta/unsubscribe', successful: true, subscription: ['/chat/**'] });
    assert.deepEqual(extension.positions(), {});
  });

  it('after a 409::queue_full, each channel subscribed again without a position gets a no_history gap', () => {
    const { extension, gaps, recovered } = recording();
    subscribeThrough(extension, ROOM, { [ROOM]: at(1) });
    subscribeThrough(extension, '/members/room', undefined);
    subscribeThrough(extension, '/chat/*', undefined);
    extension.incoming({ id: 'c', channel: '/meta/connect', successful: false, error: '409::queue_full', advice: { reconnect: 'handshake', interval: 0 } });
    extension.incoming({ id: 'h', channel: '/meta/handshake', successful: true, clientId: 'new' });
    assert.deepEqual(gaps, [], 'told when subscribed again, not before');
    subscribeThrough(extension, '/members/room', undefined);
    subscribeThrough(extension, '/chat/*', undefined);
    subscribeThrough(extension, ROOM, { [ROOM]: { ...at(1), recovered: true, replayed: 0 } });
    assert.deepEqual(gaps, [['/members/room', 'no_history'], ['/chat/*', 'no_history']]);
    assert.deepEqual(recovered, [[ROOM, 0]]);
    subscribeThrough(extension, '/members/room', undefined);
    assert.equal(gaps.length, 2, 'once');
  });

  it('a re-handshake without a lost session reports no gap', () => {
    const { extension, gaps } = recording();
    subscribeThrough(extension, '/members/room', undefined);
    extension.incoming({ id: 'c', channel: '/meta/connect', successful: false, failure: { reason: 'timeout' } });
    extension.incoming({ id: 'h', channel: '/meta/handshake', successful: true, clientId: 'new' });
    subscribeThrough(extension, '/members/room', undefined);
    assert.deepEqual(gaps, []);
  });

  it('disabled: asks for nothing, drops nothing, calls nothing, but remembers', () => {
    const { extension, gaps, recovered } = recording({ enabled: false });
    assert.equal(extension.enabled, false);
    assert.ok(extension.incoming(broadcast(ROOM, 'a', at(3))));
    assert.ok(extension.incoming(broadcast(ROOM, 'a again', at(3))), 'not dropped');
    assert.equal(extension.outgoing({ id: '1', channel: '/meta/subscribe', subscription: ROOM }).ext, undefined);
    extension.incoming({ id: '1', channel: '/meta/subscribe', successful: true, subscription: ROOM, ext: { history: { [ROOM]: { ...at(9), recovered: false, reason: 'trimmed' } } } });
    assert.deepEqual([gaps, recovered], [[], []]);
    extension.setEnabled(true);
    assert.deepEqual(extension.outgoing({ id: '2', channel: '/meta/subscribe', subscription: ROOM }).ext, { recover: { [ROOM]: at(9) } });
  });

  it('hands out copies of its positions, forgets them all on disconnect, and survives throwing callbacks', () => {
    const extension = new RecoveryExtension({ onGap: () => { throw new Error('app bug'); }, onRecovered: () => { throw new Error('app bug'); } });
    extension.registered('recovery', { getConfiguration: () => ({ logLevel: 'off' }) });
    extension.incoming(broadcast(ROOM, 'a', at(3)));
    const copy = extension.positions();
    copy[ROOM].offset = 99;
    delete copy[ROOM];
    assert.deepEqual(extension.positions(), { [ROOM]: at(3) });
    subscribeThrough(extension, ROOM, { [ROOM]: { ...at(8), recovered: false, reason: 'expired' } });
    assert.deepEqual(extension.positions(), { [ROOM]: at(8) }, 'the rule applied although onGap threw');
    extension.outgoing({ id: 'd', channel: '/meta/disconnect' });
    assert.deepEqual(extension.positions(), {});
    assert.throws(() => new RecoveryExtension({ onGap: 'reload' }), /Invalid onGap: reload/);
  });
});

describe('RecoveryExtension in a client (in-process fake server)', () => {
  it('drops a duplicate before any subscriber sees it', async () => {
    const server = new FakeServer();
    const client = server.client();
    client.registerExtension('recovery', new RecoveryExtension());
    await callback((done) => client.handshake(done));
    const received = recorder('received');
    await callback((done) => client.subscribe(ROOM, received, done));
    server.deliver(broadcast(ROOM, 'one', at(1)), broadcast(ROOM, 'one again', at(1)), broadcast(ROOM, 'two', at(2)));
    await waitFor(() => received.items.length >= 2, { what: 'two messages' });
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(received.items.map((m) => m.data), ['one', 'two']);
    client.abort();
  });

  it('on 409::queue_full handshakes again, subscribes again asking recovery, and reports what it cannot recover', async () => {
    const server = new FakeServer();
    const client = server.client();
    const gaps = recorder('gap');
    const recovered = recorder('recovered');
    client.registerExtension('recovery', new RecoveryExtension({ onGap: (c, r) => gaps([c, r]), onRecovered: (c, n) => recovered([c, n]) }));
    server.subscribeReply = (m) => (m.subscription === ROOM ? { ext: { history: { [ROOM]: at(41) } } } : {});
    await callback((done) => client.handshake(done));
    const room = recorder('room');
    await callback((done) => client.subscribe(ROOM, room, done));
    await callback((done) => client.subscribe('/members/room', () => {}, done));
    await waitFor(() => server.holding, { what: 'a held connect' });
    server.deliver(broadcast(ROOM, 'm42', at(42)));
    assert.equal((await room.next()).data, 'm42');
    const firstSession = server.clientId;

    server.subscribeReply = (m) => (m.subscription === ROOM
      ? { ext: { history: { [ROOM]: { ...at(44), recovered: true, replayed: 2 } } } } : {});
    server.answerConnect({ successful: false, error: '409::queue_full', advice: { reconnect: 'handshake', interval: 0 } });
    await waitFor(() => server.sentOn('/meta/handshake').length === 2, { what: 'a second handshake' });
    assert.deepEqual(await recovered.next(), [ROOM, 2]);
    assert.deepEqual(await gaps.next(), ['/members/room', 'no_history']);
    assert.notEqual(server.clientId, firstSession);
    const again = server.sentOn('/meta/subscribe').slice(2);
    assert.deepEqual(Object.fromEntries(again.map((m) => [m.subscription, m.ext && m.ext.recover])),
      { '/members/room': undefined, [ROOM]: { [ROOM]: at(42) } }, 'both subscribed again; the room with its position');
    server.deliver(broadcast(ROOM, 'm43', at(43)), broadcast(ROOM, 'm44', at(44)), broadcast(ROOM, 'm44', at(44)), broadcast(ROOM, 'm45', at(45)));
    await waitFor(() => room.items.length >= 4, { what: 'the replayed and live messages' });
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(room.items.map((m) => m.data), ['m42', 'm43', 'm44', 'm45']);
    assert.equal(gaps.items.length, 1);
    client.abort();
  });
});
