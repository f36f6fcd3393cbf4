// History and recovery (docs/history.md): the rules of RecoveryExtension on hand-made messages,
// the client's re-handshake on 409::queue_full against an in-process fake server, and (further
// down) recovery over real sockets against the demo server with history on /chat/**.
import { describe, it, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { RecoveryExtension, CookieJar } from '../src/index.js';
import { RecoveryExtension as FromPath } from '../src/extensions/recovery.js';
import { FakeServer } from './support/fake-server.js';
import { startDemo } from './support/demo-server.js';
import { startProxy } from './support/proxy.js';
import { TRANSPORTS, newClient, connect, subscribe, stop, recorder, waitFor, callback } from './support/util.js';

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

  it('delivers once a message that comes after one with a higher offset, within 4,096 offsets', () => {
    const { extension } = recording();
    const incoming = (offset) => extension.incoming(broadcast(ROOM, offset, at(offset)));
    assert.ok(incoming(0), 'the first message');
    // A reply carrying 632..1258 overtook the one carrying 1..631.
    for (let offset = 632; offset <= 1258; offset++) {
      assert.ok(incoming(offset), `live ${offset}`);
    }
    for (let offset = 1; offset <= 631; offset++) {
      assert.ok(incoming(offset), `late ${offset}`);
    }
    for (let offset = 0; offset <= 1258; offset++) {
      assert.equal(incoming(offset), null, `again ${offset}`);
    }
    assert.deepEqual(extension.positions(), { [ROOM]: at(1258) }, 'the position is the highest, never moved back');
    const far = 1258 + 4096 + 10;
    assert.ok(incoming(far));
    assert.equal(incoming(far - 4096), null, 'an offset 4,096 below the highest counts as delivered');
    assert.ok(incoming(far - 4095), 'one above it is told apart');
    const late = 1_732_600_000_000; // offsets as the server makes them: from the clock
    assert.ok(extension.incoming(broadcast(ROOM, 'e2', at(late + 5, 'e2'))));
    assert.ok(extension.incoming(broadcast(ROOM, 'e2', at(late + 9, 'e2'))));
    assert.ok(extension.incoming(broadcast(ROOM, 'e2', at(late + 7, 'e2'))), 'late in a new epoch');
    assert.equal(extension.incoming(broadcast(ROOM, 'e2', at(late + 7, 'e2'))), null);
    assert.equal(extension.incoming(broadcast(ROOM, 'e2', at(late + 4, 'e2'))), null, 'before the epoch\'s first message');
  });

  it('counts every offset up to a subscription\'s start as delivered, gaps before it included', () => {
    const { extension } = recording();
    const incoming = (offset) => extension.incoming(broadcast(ROOM, offset, at(offset)));
    assert.ok(incoming(1));
    assert.ok(incoming(5));
    subscribeThrough(extension, ROOM, { [ROOM]: at(10) });
    assert.equal(incoming(3), null, 'published before the subscription started');
    assert.ok(incoming(11));
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
    extension.outgoing({ id: 'u1', channel: '/meta/unsubscribe', subscription: ROOM });
    assert.deepEqual(extension.positions(), { '/chat/other': at(4) }, 'forgotten as the unsubscribe leaves');
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
  /** What a subscriber to ROOM of a client with recovery receives of `messages`, once `count` came. */
  async function receivedOf(messages, count) {
    const server = new FakeServer();
    const client = server.client();
    client.registerExtension('recovery', new RecoveryExtension());
    await callback((done) => client.handshake(done));
    const received = recorder('received');
    await callback((done) => client.subscribe(ROOM, received, done));
    server.deliver(...messages);
    await waitFor(() => received.items.length >= count, { what: `${count} messages` });
    await new Promise((resolve) => setImmediate(resolve));
    client.abort();
    return received.items.map((m) => m.data);
  }

  it('drops a duplicate before any subscriber sees it', async () => {
    const received = await receivedOf([broadcast(ROOM, 'one', at(1)), broadcast(ROOM, 'one again', at(1)), broadcast(ROOM, 'two', at(2))], 2);
    assert.deepEqual(received, ['one', 'two']);
  });

  it('gives a subscriber once a message that a later one of its channel overtook', async () => {
    const received = await receivedOf([broadcast(ROOM, 'one', at(1)), broadcast(ROOM, 'three', at(3)), broadcast(ROOM, 'two', at(2)),
      broadcast(ROOM, 'two again', at(2)), broadcast(ROOM, 'three again', at(3)), broadcast(ROOM, 'four', at(4))], 4);
    assert.deepEqual(received, ['one', 'three', 'two', 'four']);
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

/**
 * Makes the server forget `client`'s session, as its maxInterval would once the client is cut
 * off (the demo's maxInterval is not configurable, and a test does not sleep): a
 * /meta/disconnect with its clientId and its browser cookie, sent straight to the server.
 */
async function forgetSession(server, client, jar) {
  const response = await fetch(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: jar.header(server.url) },
    body: JSON.stringify([{ id: 'forget', channel: '/meta/disconnect', clientId: client.getClientId() }]),
    signal: AbortSignal.timeout(5000),
  });
  const [reply] = await response.json();
  assert.equal(reply.successful, true, `the server did not forget the session: ${JSON.stringify(reply)}`);
}

/** Publishes `data` and waits for the server's reply. */
async function publish(client, channel, data) {
  const reply = await callback((done) => client.publish(channel, data, done), { what: `publish ${JSON.stringify(data)}` });
  assert.equal(reply.successful, true, `publish failed: ${JSON.stringify(reply)}`);
}

describe('recovery against the demo server', () => {
  let large; // history of 1500 messages per /chat/** channel (more than a session's queue holds)
  let small; // history of 5
  let bounded; // history of 1500, sessions' queues of 20
  before(async () => {
    [large, small, bounded] = await Promise.all([
      startDemo({ args: ['--history-size', '1500', '--history-ttl', '5m'] }),
      startDemo({ args: ['--history-size', '5', '--history-ttl', '5m'] }),
      startDemo({ args: ['--history-size', '1500', '--history-ttl', '5m', '--max-queue', '20'] }),
    ]);
  });
  after(async () => {
    await Promise.all([large && large.kill(), small && small.kill(), bounded && bounded.kill()]);
  });

  for (const transport of TRANSPORTS) {
    describe(`over ${transport}`, () => {
      const clients = [];
      const proxies = [];
      afterEach(async () => {
        await stop(...clients.splice(0));
        await Promise.all(proxies.splice(0).map((p) => p.close()));
      });

      /**
       * Alice, with recovery, reaches `server` through a proxy the test cuts; `gaps`,
       * `recovered` and `subscribes` (the /meta/subscribe messages as sent) record what happens.
       */
      async function alice(server) {
        const proxy = await startProxy({ port: server.port });
        proxies.push(proxy);
        const jar = new CookieJar();
        const client = newClient(proxy.url('/cometd'), transport, { cookieJar: jar });
        clients.push(client);
        const gaps = recorder('gap');
        const recovered = recorder('recovered');
        const recovery = new RecoveryExtension({ onGap: (c, reason) => gaps([c, reason]), onRecovered: (c, n) => recovered([c, n]) });
        const subscribes = [];
        const a = { client, proxy, recovery, gaps, recovered, subscribes, onSubscribe: () => {} };
        // Registered before recovery, so that it sees outgoing messages after it (in reverse
        // order): as they leave, with recovery's ext.
        a.arrivals = [];
        client.registerExtension('wire', {
          incoming: (m) => { if (!m.channel.startsWith('/meta/') && 'data' in m) a.arrivals.push(m.data); },
          outgoing: (m) => {
            if (m.channel === '/meta/subscribe') {
              subscribes.push(structuredClone(m));
              a.onSubscribe(m);
            }
          },
        });
        client.registerExtension('recovery', recovery);
        await connect(client);
        /** The network goes and the server forgets the session, as after a long cut. */
        a.cutAndForget = async () => {
          proxy.cut();
          await forgetSession(server, client, jar);
        };
        return a;
      }

      async function publisher(server) {
        const client = newClient(server.url, transport);
        clients.push(client);
        await connect(client);
        return client;
      }

      it('a client cut off and forgotten gets back exactly what it missed, in order and once, then live messages', async () => {
        const channel = `/chat/${transport}-recovered`;
        const a = await alice(large);
        const bob = await publisher(large);
        const received = recorder('received');
        await subscribe(a.client, channel, received);
        await publish(bob, channel, 'm1');
        await publish(bob, channel, 'm2');
        await waitFor(() => received.items.length >= 2, { what: 'm1 and m2' });
        const before = a.recovery.positions()[channel];
        assert.equal(typeof before.offset, 'number', `a position for ${channel}: ${JSON.stringify(a.recovery.positions())}`);
        assert.equal(typeof before.epoch, 'string');
        const firstSession = a.client.getClientId();

        await a.cutAndForget();
        for (const text of ['m3', 'm4', 'm5', 'm6', 'm7']) {
          await publish(bob, channel, text);
        }
        a.proxy.resume();

        assert.deepEqual(await a.recovered.next(10000), [channel, 5]);
        await waitFor(() => received.items.length >= 7, { what: 'the 5 missed messages' });
        assert.notEqual(a.client.getClientId(), firstSession, 'a new session');
        const again = a.subscribes.at(-1);
        assert.equal(again.subscription, channel);
        assert.deepEqual(again.ext.recover, { [channel]: before }, 'subscribed again from the last position received');
        await publish(bob, channel, 'live');
        await waitFor(() => received.items.length >= 8, { what: 'the live message' });
        await publish(bob, channel, 'marker');
        await waitFor(() => received.items.length >= 9, { what: 'the marker' });
        assert.deepEqual(received.items.map((m) => m.data), ['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'live', 'marker']);
        assert.deepEqual(a.gaps.items, []);
        const offsets = received.items.map((m) => m.ext.position.offset);
        assert.deepEqual(offsets, [...offsets].sort((x, y) => x - y), 'positions grow');
      });

      it('a gap the history does not cover is reported as trimmed, and nothing of it is replayed', async () => {
        const channel = `/chat/${transport}-trimmed`;
        const a = await alice(small);
        const bob = await publisher(small);
        const received = recorder('received');
        await subscribe(a.client, channel, received);
        await publish(bob, channel, 'before');
        assert.equal((await received.next()).data, 'before');

        await a.cutAndForget();
        for (let i = 1; i <= 8; i++) {
          await publish(bob, channel, `missed ${i}`); // 8 > the history's 5
        }
        a.proxy.resume();

        assert.deepEqual(await a.gaps.next(10000), [channel, 'trimmed']);
        await publish(bob, channel, 'after');
        await waitFor(() => received.items.length >= 2, { what: 'the message after the gap' });
        assert.deepEqual(received.items.map((m) => m.data), ['before', 'after'], 'no partial replay');
        assert.deepEqual(a.recovered.items, []);
        assert.deepEqual(a.recovery.positions()[channel], received.items[1].ext.position, 'from the new position on');
      });

      it('messages published while the client subscribes again arrive exactly once, in order', async () => {
        const channel = `/chat/${transport}-race`;
        const a = await alice(large);
        const bob = await publisher(large);
        const received = recorder('received');
        await subscribe(a.client, channel, received);

        // Bob publishes 1, 2, 3... one after the other, without pause, until told to stop.
        const published = [];
        let inFlight = false;
        let stopped = false;
        const racing = [];
        a.onSubscribe = (m) => { if (m.ext && m.ext.recover) racing.push(inFlight); };
        const publishing = (async () => {
          for (let n = 1; !stopped && n <= 600; n++) {
            inFlight = true;
            await publish(bob, channel, n);
            inFlight = false;
            published.push(n);
          }
        })();
        try {
          await waitFor(() => received.items.length >= 5, { what: 'the first messages' });
          await a.cutAndForget();
          const missed = published.length;
          await waitFor(() => published.length >= missed + 10, { what: '10 messages while away' });
          a.proxy.resume();
          const [, replayed] = await a.recovered.next(10000);
          assert.ok(replayed >= 10, `replayed ${replayed}`);
          const recoveredAt = received.items.length;
          await waitFor(() => received.items.length >= recoveredAt + 20 || stopped, { timeout: 10000, what: '20 live messages after the recovery' });
        } finally {
          stopped = true;
          await publishing;
        }
        const last = published.at(-1);
        await waitFor(() => received.items.some((m) => m.data === last), { timeout: 10000, what: `message ${last}` });
        await publish(bob, channel, 'marker');
        await waitFor(() => received.items.some((m) => m.data === 'marker'), { what: 'the marker' });
        assert.deepEqual(received.items.map((m) => m.data), [...published, 'marker'], 'every message once, in order');
        assert.deepEqual(racing, [true], 'a publish was in flight when the recovering subscription left');
        assert.deepEqual(a.gaps.items, []);
      });

      // Over long-polling the replay must come in one response at a time, in order: after the
      // first connect (which the client asks with a timeout of 0), the subscribe's response
      // leaves the session's messages to the next connect.
      it('a session whose queue overflowed is told 409::queue_full, handshakes again and recovers, and hears of the channels it cannot', async () => {
        const channel = `/chat/${transport}-overflow`;
        const a = await alice(large);
        const bob = await publisher(large);
        const received = recorder('received');
        await subscribe(a.client, channel, received);
        await subscribe(a.client, `/members/${transport}-overflow`, () => {}); // no history there
        const failures = [];
        a.client.addListener('/meta/connect', (m) => { if (!m.successful && m.error) failures.push(m.error); });
        await publish(bob, channel, 0);
        await waitFor(() => received.items.length >= 1, { what: 'the first message' });
        const firstSession = a.client.getClientId();

        a.proxy.cut(); // the session stays, and its queue (1000 messages at most) fills
        const total = 1100;
        for (let from = 1; from <= total; from += 100) {
          const replies = [];
          bob.batch(() => {
            for (let n = from; n < from + 100; n++) {
              replies.push(callback((done) => bob.publish(channel, n, done), { what: `publish ${n}` }));
            }
          });
          assert.ok((await Promise.all(replies)).every((r) => r.successful));
        }
        a.proxy.resume();

        assert.deepEqual(await a.recovered.next(10000), [channel, total]);
        assert.deepEqual(await a.gaps.next(), [`/members/${transport}-overflow`, 'no_history']);
        assert.equal(failures[0], '409::queue_full');
        assert.notEqual(a.client.getClientId(), firstSession);
        await waitFor(() => received.items.length >= total + 1, { timeout: 20000, what: 'every message' }).catch((x) => {
          const got = received.items.map((m) => m.data);
          const summary = (list) => {
            const ranges = [];
            for (const n of list) {
              const last = ranges.at(-1);
              if (last && typeof n === 'number' && n === last[1] + 1) last[1] = n; else ranges.push([n, n]);
            }
            return ranges.map(([f, t]) => (f === t ? f : `${f}-${t}`)).join(', ');
          };
          throw new Error(`${x.message}: got ${got.length} (${summary(got)}), arrived ${a.arrivals.length} (${summary(a.arrivals)}); connect errors ${failures};`
            + ` recovered ${JSON.stringify(a.recovered.items)}; gaps ${JSON.stringify(a.gaps.items)}; subscribed again ${a.subscribes.filter((m) => m.subscription === channel).length - 1} times; ${a.client.getStatus()}`);
        });
        await publish(bob, channel, 'live');
        await waitFor(() => received.items.length >= total + 2, { what: 'the live message' });
        assert.deepEqual(received.items.map((m) => m.data), [...Array.from({ length: total + 1 }, (_, n) => n), 'live']);
      });

      it('a client reading a stream that overflows its queue again and again gets every message once, in order', async () => {
        const channel = `/chat/${transport}-stream`;
        const a = await alice(bounded);
        const bob = await publisher(bounded);
        const received = recorder('received');
        await subscribe(a.client, channel, received);
        const failures = [];
        a.client.addListener('/meta/connect', (m) => { if (!m.successful && m.error) failures.push(m.error); });

        // Batches of 30 for queues of 20, sent back to back while alice reads: each overflows
        // hers, which may drain before the next batch comes and before her session is gone.
        const total = 600;
        const replies = [];
        for (let from = 1; from <= total; from += 30) {
          bob.batch(() => {
            for (let n = from; n < from + 30; n++) {
              replies.push(callback((done) => bob.publish(channel, n, done), { what: `publish ${n}` }));
            }
          });
        }
        assert.ok((await Promise.all(replies)).every((r) => r.successful));
        await waitFor(() => received.items.length >= total, { timeout: 20000, what: 'every message' }).catch((x) => {
          throw new Error(`${x.message}: got ${received.items.length}; connect errors ${failures}; recovered ${JSON.stringify(a.recovered.items)}; gaps ${JSON.stringify(a.gaps.items)}`);
        });
        await publish(bob, channel, 'live');
        await waitFor(() => received.items.length >= total + 1, { what: 'the live message' });
        assert.deepEqual(received.items.map((m) => m.data), [...Array.from({ length: total }, (_, n) => n + 1), 'live'], 'every message once, in order');
        assert.ok(failures.includes('409::queue_full'), `the queue overflowed: ${failures}`);
        assert.deepEqual(a.gaps.items, []);
      });

      it('after a server restart, a subscription made again is told its history is another epoch', async () => {
        const args = ['--history-size', '10', '--history-ttl', '5m'];
        const first = await startDemo({ args });
        let restarted = null;
        try {
          const channel = `/chat/${transport}-restart`;
          const gaps = recorder('gap');
          const recovery = new RecoveryExtension({ onGap: (c, reason) => gaps([c, reason]) });
          const a = newClient(first.url, transport);
          clients.push(a);
          a.registerExtension('recovery', recovery);
          await connect(a);
          const received = recorder('received');
          await subscribe(a, channel, received);
          const bob = newClient(first.url, transport);
          await connect(bob);
          await publish(bob, channel, 'before');
          bob.abort(); // its server goes away
          const before = (await received.next()).ext.position;

          await first.kill();
          restarted = await startDemo({ port: first.port, args });
          assert.deepEqual(await gaps.next(15000), [channel, 'epoch']);
          const after = recovery.positions()[channel];
          assert.notEqual(after.epoch, before.epoch, 'the new history\'s position');
          const bob2 = await publisher(restarted);
          await publish(bob2, channel, 'after');
          assert.equal((await received.next()).data, 'after');
          assert.deepEqual(received.items.map((m) => m.data), ['before', 'after']);
        } finally {
          await stop(...clients.splice(0));
          await first.kill();
          await restarted?.kill();
        }
      });
    });
  }
});
