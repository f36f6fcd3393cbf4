// Every API call of BayeuxClient against the real demo server, once per transport.
import { describe, it, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { startDemo } from './support/demo-server.js';
import { TRANSPORTS, newClient, connect, subscribe, stop, recorder, callback, waitFor } from './support/util.js';
import { BayeuxClient, TimesyncExtension, TimestampExtension, promises } from '../src/index.js';

let server;
before(async () => { server = await startDemo(); });
after(async () => { await server.kill(); });

for (const transport of TRANSPORTS) {
  describe(`over ${transport}`, () => {
    const clients = [];
    const client = (options) => {
      const c = newClient(server.url, transport, options);
      clients.push(c);
      return c;
    };
    afterEach(async () => { await stop(...clients.splice(0)); });

    it('handshakes, connects on the forced transport and disconnects', async () => {
      const c = client();
      const statuses = [];
      // Called on every change of status or transport: keep the status changes.
      c.addStatusListener((status) => (statuses.at(-1) || 'disconnected') !== status && statuses.push(status));
      assert.equal(c.getStatus(), 'disconnected');
      assert.equal(c.isDisconnected(), true);
      const reply = await connect(c);
      assert.equal(typeof reply.clientId, 'string');
      assert.equal(c.getClientId(), reply.clientId);
      assert.equal(c.getTransport(), transport);
      assert.equal(c.isDisconnected(), false);
      const disconnected = await callback((done) => c.disconnect(done));
      assert.equal(disconnected.successful, true);
      assert.equal(c.getStatus(), 'disconnected');
      assert.equal(c.getClientId(), null);
      assert.deepEqual(statuses, ['handshaking', 'connecting', 'connected', 'disconnecting', 'disconnected']);
    });

    it('init configures and handshakes with the given props', async () => {
      const c = client();
      const handshakes = recorder('handshake');
      c.addListener('/meta/handshake', handshakes);
      c.init({ url: server.url, maxNetworkDelay: 5000 }, { ext: { app: 'test' } });
      assert.equal((await handshakes.next()).successful, true);
      assert.equal(c.getConfiguration().maxNetworkDelay, 5000);
    });

    it('delivers a published message to every subscriber, wildcards included, and answers the publisher', async () => {
      const alice = client();
      const bob = client();
      await connect(alice);
      await connect(bob);
      const exact = recorder('exact');
      const star = recorder('star');
      const deep = recorder('deep');
      await subscribe(bob, `/chat/${transport}-room`, exact);
      await subscribe(bob, '/chat/*', star);
      await subscribe(bob, '/chat/**', deep);
      const published = await callback((done) => alice.publish(`/chat/${transport}-room`, { text: 'hello' }, done));
      assert.equal(published.successful, true);
      for (const r of [exact, star, deep]) {
        const message = await r.next();
        assert.equal(message.channel, `/chat/${transport}-room`);
        assert.deepEqual(message.data, { text: 'hello' });
      }
    });

    it('stops delivering after unsubscribe and tells the server only with the last subscription', async () => {
      const c = client();
      await connect(c);
      const channel = `/chat/${transport}-unsub`;
      const marks = recorder('mark');
      await subscribe(c, `${channel}-mark`, marks);
      const first = recorder('first');
      const second = recorder('second');
      const h1 = await subscribe(c, channel, first);
      const subscribes = recorder('subscribe');
      c.addListener('/meta/subscribe', subscribes);
      const h2 = await subscribe(c, channel, second);
      const unsubscribes = recorder('unsubscribe');
      c.addListener('/meta/unsubscribe', unsubscribes);
      c.unsubscribe(h1);
      await callback((done) => c.publish(channel, 1, done));
      assert.equal((await second.next()).data, 1);
      await callback((done) => c.unsubscribe(h2, done));
      assert.equal(unsubscribes.items.length, 1, 'one /meta/unsubscribe for two subscriptions');
      assert.equal(subscribes.items.length, 0, 'the second subscription was local');
      await callback((done) => c.publish(channel, 2, done));
      // What the server sent c before a marker from another client has arrived once the marker has.
      const bob = client();
      await connect(bob);
      await callback((done) => bob.publish(`${channel}-mark`, 'mark', done));
      assert.equal((await marks.next()).data, 'mark');
      assert.deepEqual(first.items.map((m) => m.data), []);
      assert.deepEqual(second.items.map((m) => m.data), [1]);
      assert.throws(() => c.unsubscribe(h2), /Not a subscription/);
    });

    it('resubscribe gives a working handle for the same callback', async () => {
      const c = client();
      await connect(c);
      const channel = `/chat/${transport}-resub`;
      const received = recorder('received');
      const handle = await subscribe(c, channel, received);
      const again = c.resubscribe(handle);
      assert.notEqual(again.id, handle.id);
      assert.equal(again.channel, channel);
      await waitFor(() => !c.isDisconnected());
      await callback((done) => c.publish(channel, 'x', done));
      assert.equal((await received.next()).data, 'x');
      // A second callback of the same message, or a second copy of it, would come before a marker published after it.
      const bob = client();
      await connect(bob);
      await callback((done) => bob.publish(channel, 'marker', done));
      await waitFor(() => received.items.some((m) => m.data === 'marker'), { what: 'the marker' });
      assert.equal(received.items.filter((m) => m.data === 'x').length, 1, 'one callback, not two');
    });

    it('fails a subscription the server refuses and drops it locally', async () => {
      const c = client();
      // The server refuses subscriptions to meta channels; the client itself never sends one.
      c.registerExtension('forge', {
        outgoing: (m) => (m.channel === '/meta/subscribe' ? { ...m, subscription: '/meta/connect' } : m),
      });
      await connect(c);
      let handle;
      const reply = await callback((done) => { handle = c.subscribe(`/chat/${transport}-refused`, () => {}, done); });
      assert.equal(reply.successful, false);
      assert.equal(reply.error, '403:denied_by_security_policy:subscribe_denied');
      assert.throws(() => c.unsubscribe(handle), /Not a subscription/, 'the refused subscription is gone');
      assert.throws(() => c.subscribe('/meta/connect', () => {}), /meta channel/);
      assert.throws(() => c.subscribe('not a channel', () => {}), /Invalid channel: "not a channel"/);
    });

    it('batches messages sent between startBatch and endBatch, and in batch(fn)', async () => {
      const sent = [];
      const c = client();
      c.registerExtension('spy', { outgoing: (m) => { sent.push(m); } });
      await connect(c);
      const received = recorder('received');
      const channel = `/chat/${transport}-batch`;
      await subscribe(c, channel, received);
      c.startBatch();
      c.publish(channel, 1);
      c.publish(channel, 2);
      // The client sends at once or from a queued task, never later unless a timer runs: once the
      // tasks queued now have run, what the batch did not hold back has left.
      await new Promise((resolve) => { setImmediate(resolve); });
      assert.equal(sent.filter((m) => m.channel === channel).length, 0, 'nothing leaves before endBatch');
      assert.equal(received.items.length, 0);
      c.endBatch();
      c.batch(() => {
        c.publish(channel, 3);
      });
      await waitFor(() => received.items.length === 3, { what: 'three messages' });
      // Over long-polling a delivery may ride on either of two concurrent responses: no order is promised.
      assert.deepEqual(received.items.map((m) => m.data).sort(), [1, 2, 3]);
      const batch = sent.filter((m) => m.channel === channel);
      assert.equal(batch.length, 3);
      assert.throws(() => c.endBatch(), /without startBatch/);
    });

    it('notifies meta listeners until they are removed', async () => {
      const c = client();
      const connects = recorder('connect');
      const handle = c.addListener('/meta/connect', connects);
      await connect(c);
      assert.equal((await connects.next()).successful, true);
      assert.equal(c.removeListener(handle), true);
      const count = connects.items.length;
      await stop(c);
      // A listener still there sees the next /meta/connect reply: the first of a new session comes at once.
      // It is added after the disconnect, whose end of the held connect may reach listeners as a failure.
      const kept = recorder('kept');
      c.addListener('/meta/connect', kept);
      await connect(c);
      assert.equal((await kept.next()).successful, true);
      assert.equal(connects.items.length, count);
      assert.throws(() => c.removeListener({}), /Not a listener/);
    });

    it('remoteCall gets the service result with the request id, in order, for many calls', async () => {
      const c = client();
      await connect(c);
      const replies = await Promise.all([1, 2, 3].map((n) => callback((done) => c.remoteCall('echo', { n }, done))));
      assert.deepEqual(replies.map((r) => r.data), [{ n: 1 }, { n: 2 }, { n: 3 }]);
      for (const reply of replies) {
        assert.equal(reply.successful, true);
        assert.equal(reply.channel, '/service/echo');
      }
    });

    it('remoteCall fails when the service refuses and when no result comes in time', async () => {
      const c = client();
      await connect(c);
      const refused = await callback((done) => c.remoteCall('members', { room: 'not a room' }, done));
      assert.equal(refused.successful, false);
      assert.match(refused.error, /^404::message_deleted/);
      const started = Date.now();
      const silent = await callback((done) => c.remoteCall('/nobody-home', {}, 300, done));
      assert.equal(silent.successful, false);
      assert.equal(silent.failure.reason, 'timeout');
      assert.ok(Date.now() - started >= 290, 'waited for the timeout');
    });

    it('joins a room through the members service and gets the member list', async () => {
      const alice = client();
      const bob = client();
      await connect(alice);
      await connect(bob);
      const room = `${transport}-members`;
      const members = recorder('members');
      await subscribe(alice, `/members/${room}`, members);
      alice.publish('/service/members', { room: `/chat/${room}`, user: 'alice', action: 'join' });
      await waitFor(() => members.items.some((m) => m.data.length === 1), { what: 'alice alone' });
      bob.publish('/service/members', { room: `/chat/${room}`, user: 'bob', action: 'join' });
      await waitFor(() => members.items.some((m) => m.data.length === 2), { what: 'alice and bob' });
      assert.deepEqual(members.items.at(-1).data, ['alice', 'bob']);
    });

    it('runs extensions on every message until unregistered', async () => {
      const outgoing = [];
      const incoming = [];
      const c = client();
      assert.equal(c.registerExtension('tag', {
        outgoing(m) { m.ext = { ...m.ext, tag: 1 }; outgoing.push(m.channel); return m; },
        incoming(m) { incoming.push(m.channel); return m; },
      }), true);
      assert.equal(c.registerExtension('tag', {}), false, 'a name is registered once');
      await connect(c);
      assert.ok(outgoing.includes('/meta/handshake') && outgoing.includes('/meta/connect'));
      assert.ok(incoming.includes('/meta/handshake') && incoming.includes('/meta/connect'));
      assert.equal(c.unregisterExtension('tag'), true);
      const before = outgoing.length;
      await callback((done) => c.publish(`/chat/${transport}-ext`, 1, done));
      assert.equal(outgoing.length, before);
      assert.equal(c.getExtension('tag'), null);
    });

    it('an extension that drops an outgoing publish fails it locally', async () => {
      const c = client();
      c.registerExtension('veto', { outgoing: (m) => (m.data === 'no' ? null : m) });
      await connect(c);
      const reply = await callback((done) => c.publish(`/chat/${transport}-veto`, 'no', done));
      assert.equal(reply.successful, false);
      assert.equal(reply.error, '404::message_deleted');
    });

    it('timesync estimates lag and offset from the server replies', async () => {
      const c = client();
      const timesync = new TimesyncExtension();
      c.registerExtension('timesync', timesync);
      await connect(c);
      await waitFor(() => timesync.getTimeOffsetSamples().length > 0, { what: 'a timesync sample' });
      assert.ok(timesync.getNetworkLag() >= 0);
      assert.ok(Math.abs(timesync.getTimeOffset()) < 1000, `same machine, offset ${timesync.getTimeOffset()}`);
      assert.ok(Math.abs(timesync.getServerTime() - Date.now()) < 1000);
    });

    it('timestamp stamps every outgoing message', async () => {
      const seen = [];
      const c = client();
      c.registerExtension('spy', { outgoing: (m) => { seen.push(m); return m; } });
      c.registerExtension('timestamp', new TimestampExtension());
      await connect(c);
      assert.ok(seen.length >= 2);
      for (const m of seen) {
        assert.ok(!Number.isNaN(Date.parse(m.timestamp)), `timestamp of ${m.channel}: ${m.timestamp}`);
      }
    });

    it('uses a transport registered by the application in place of a built-in one', async () => {
      const sends = [];
      const c = client();
      const Builtin = c.findTransport(transport).constructor;
      class Counting extends Builtin {
        send(messages, metaConnect) {
          sends.push(...messages.map((m) => m.channel));
          super.send(messages, metaConnect);
        }
      }
      assert.ok(c.unregisterTransport(transport) instanceof Builtin);
      assert.equal(c.findTransport(transport), null);
      assert.equal(c.registerTransport(transport, new Counting(), 0), true);
      assert.equal(c.registerTransport(transport, new Counting()), false, 'a name is registered once');
      assert.equal(c.getTransportTypes()[0], transport);
      await connect(c);
      await callback((done) => c.publish(`/chat/${transport}-custom`, 1, done));
      for (const channel of ['/meta/handshake', '/meta/connect', `/chat/${transport}-custom`]) {
        assert.ok(sends.includes(channel), `${channel} went through the registered transport`);
      }
    });

    it('keeps messages published while the link is down and sends them when it is back', async () => {
      const c = client({ maxOutboxSize: 2 });
      const received = recorder('received');
      const channel = `/chat/${transport}-outbox`;
      const replies = [];
      c.handshake();
      // Until the handshake completes, everything waits in the outbox (bounded at 2).
      c.publish(channel, 'dropped', (r) => replies.push(r));
      c.subscribe(channel, received);
      c.publish(channel, 'kept', (r) => replies.push(r));
      await waitFor(() => received.items.length === 1, { what: 'the kept message' });
      assert.equal(received.items[0].data, 'kept');
      await waitFor(() => replies.length === 2, { what: 'both publish replies' });
      const dropped = replies.find((r) => !r.successful);
      assert.equal(dropped.failure.reason, 'outbox full');
      assert.equal(dropped.failure.message.data, 'dropped');
    });

    it('validates its configuration and arguments, naming the bad value', () => {
      const c = client();
      assert.throws(() => c.configure({ backoffIncrement: 0 }), /backoffIncrement: 0/);
      assert.throws(() => c.configure({ url: 'ftp://x' }), /Invalid url: "ftp:\/\/x"/);
      assert.throws(() => c.configure({ logLevel: 'loud' }), /logLevel: "loud"/);
      assert.throws(() => c.configure({ maxBackoff: 10, backoffIncrement: 100 }), /maxBackoff/);
      assert.throws(() => c.publish('/chat/x', 1), /Illegal state: cannot publish while disconnected/);
      assert.throws(() => c.remoteCall('', 1, () => {}), /remote call target/);
      assert.throws(() => new BayeuxClient().handshake(), /No url configured/);
    });

    it('offers promises for the calls that have replies', async () => {
      const c = client();
      const p = promises(c);
      const handshake = await p.handshake();
      assert.equal(handshake.successful, true);
      const received = recorder('received');
      const handle = await p.subscribe(`/chat/${transport}-promise`, received);
      assert.equal(handle.channel, `/chat/${transport}-promise`);
      await p.publish(`/chat/${transport}-promise`, 'p');
      assert.equal((await received.next()).data, 'p');
      assert.deepEqual(await p.remoteCall('echo', [1, 2]), [1, 2]);
      await assert.rejects(p.remoteCall('members', {}), (x) => x.reply.error.startsWith('404'));
      await p.unsubscribe(handle);
      assert.equal((await p.disconnect()).successful, true);
    });
  });
}

describe('long-polling requests', () => {
  it('carry the configured headers and name single meta messages in the URL, unless told not to', async () => {
    const requests = [];
    const recordingFetch = (url, init) => {
      requests.push({ url, headers: init.headers, credentials: init.credentials });
      return fetch(url, init);
    };
    for (const appendMessageTypeToURL of [true, false]) {
      requests.length = 0;
      const c = newClient(server.url, 'long-polling', { fetch: recordingFetch, requestHeaders: { 'X-Test': 'yes' }, appendMessageTypeToURL });
      try {
        await connect(c);
      } finally {
        await stop(c);
      }
      const urls = requests.map((r) => r.url);
      if (appendMessageTypeToURL) {
        assert.deepEqual(urls.slice(0, 2), [`${server.url}/handshake`, `${server.url}/connect`]);
        assert.ok(urls.includes(`${server.url}/disconnect`), urls.join());
      } else {
        assert.ok(urls.every((u) => u === server.url), urls.join());
      }
      for (const request of requests) {
        assert.equal(request.headers['X-Test'], 'yes');
        assert.match(request.headers['Content-Type'], /^application\/json/);
        assert.equal(request.credentials, 'include');
      }
    }
  });
});
