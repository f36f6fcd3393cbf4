// Acknowledged delivery across a cut connection, and a session kept across a page reload,
// against the demo server (which enables the server side of the ack extension), per transport.
import { describe, it, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { startDemo } from './support/demo-server.js';
import { TRANSPORTS, newClient, connect, subscribe, stop, recorder, callback, waitFor, browserFetch, tappedWebSocket } from './support/util.js';
import { AckExtension, ReloadExtension, CookieJar } from '../src/index.js';

let server;
before(async () => { server = await startDemo(); });
after(async () => { await server.kill(); });

/** A sessionStorage stand-in, as a page has one. */
function fakeSessionStorage() {
  const items = new Map();
  return {
    items,
    getItem: (key) => (items.has(key) ? items.get(key) : null),
    setItem: (key, value) => items.set(key, String(value)),
    removeItem: (key) => items.delete(key),
  };
}

/**
 * Options that lose the first response carrying data on `channel` and break the connection
 * it came on, as a network failure in the middle of a delivery would.
 */
async function losingFirstDelivery(transport, channel) {
  let lost = null;
  const carries = (messages) => messages.some((m) => m.channel === channel && 'data' in m);
  if (transport === 'long-polling') {
    const fetch = browserFetch({
      rewrite: (messages) => {
        if (!lost && carries(messages)) {
          lost = messages.filter((m) => m.channel === channel);
          throw new TypeError('fetch failed (the test dropped this response)');
        }
        return messages;
      },
    });
    return { options: { fetch }, lost: () => lost };
  }
  const WebSocket = await tappedWebSocket({
    filter: (text, socket) => {
      const messages = JSON.parse(text);
      if (!lost && carries(messages)) {
        lost = messages.filter((m) => m.channel === channel);
        socket.cut();
        return null;
      }
      return text;
    },
  });
  return { options: { WebSocket }, lost: () => lost };
}

for (const transport of TRANSPORTS) {
  describe(`over ${transport}`, () => {
    const clients = [];
    const client = (options) => {
      const c = newClient(server.url, transport, options);
      clients.push(c);
      return c;
    };
    afterEach(async () => { await stop(...clients.splice(0)); });

    it('with acknowledgements, a delivery lost with its connection is delivered again', async () => {
      const channel = `/chat/${transport}-acked`;
      const { options, lost } = await losingFirstDelivery(transport, channel);
      const alice = client(options);
      const ack = new AckExtension();
      alice.registerExtension('ack', ack);
      await connect(alice);
      assert.equal(ack.serverSupportsAcks, true);
      const received = recorder('received');
      await subscribe(alice, channel, received);
      const bob = client();
      await connect(bob);
      await callback((done) => bob.publish(channel, 'first', done));
      await waitFor(lost, { what: 'the lost delivery' });
      await callback((done) => bob.publish(channel, 'second', done));
      await waitFor(() => received.items.length >= 2, { what: 'both messages' });
      assert.deepEqual(received.items.map((m) => m.data), ['first', 'second']);
      assert.ok(ack.batch > 0);
    });

    it('without acknowledgements, the same loss loses the message', async () => {
      const channel = `/chat/${transport}-unacked`;
      const { options, lost } = await losingFirstDelivery(transport, channel);
      const alice = client(options);
      // A message published before the server noticed the cut may go into the dying socket
      // too: the second one is published once alice is connected again.
      let reconnected = false;
      alice.addListener('/meta/connect', (m) => { reconnected ||= Boolean(lost() && m.successful); });
      await connect(alice);
      const received = recorder('received');
      await subscribe(alice, channel, received);
      const bob = client();
      await connect(bob);
      await callback((done) => bob.publish(channel, 'first', done));
      await waitFor(lost, { what: 'the lost delivery' });
      await waitFor(() => reconnected, { what: 'the connection after the loss' });
      await callback((done) => bob.publish(channel, 'second', done));
      await waitFor(() => received.items.length >= 1, { what: 'the second message' });
      // A marker after it, on the same way: had the first come back, it would be here before the marker.
      await callback((done) => bob.publish(channel, 'marker', done));
      await waitFor(() => received.items.some((m) => m.data === 'marker'), { what: 'the marker' });
      assert.deepEqual(received.items.map((m) => m.data), ['second', 'marker']);
    });

    it('a reloaded page resumes its session without a handshake and gets what was published meanwhile', async () => {
      const storage = fakeSessionStorage();
      const channel = `/chat/${transport}-reload`;
      const cookieJar = new CookieJar(); // the browser's cookies outlive the page
      const page1 = client({ cookieJar });
      page1.registerExtension('reload', new ReloadExtension({ storage }));
      page1.registerExtension('ack', new AckExtension());
      await connect(page1);
      const before = recorder('before reload');
      await subscribe(page1, channel, before);
      const marks = recorder('mark');
      await subscribe(page1, `${channel}-mark`, marks);
      const bob = client();
      await connect(bob);
      await callback((done) => bob.publish(channel, 'before', done));
      assert.equal((await before.next()).data, 'before');
      // The server forgets 'before' once a connect acknowledges its batch: page1's next connect,
      // sent when the reply came. A mark published now can only come in the reply to that connect
      // or a later one, so once it is here the acknowledgement arrived. page2 does not listen on
      // the mark's channel.
      await callback((done) => bob.publish(`${channel}-mark`, 'mark', done));
      assert.equal((await marks.next()).data, 'mark');
      assert.equal(page1.reload(), true);
      const clientId = page1.getClientId();
      page1.abort(); // the page goes away without a word

      await callback((done) => bob.publish(channel, 'while reloading', done));

      const page2 = client({ cookieJar });
      const wire = [];
      page2.registerExtension('wire', { outgoing: (m) => { wire.push(m.channel); } });
      page2.registerExtension('reload', new ReloadExtension({ storage }));
      page2.registerExtension('ack', new AckExtension());
      const handshakes = recorder('handshake');
      page2.addListener('/meta/handshake', handshakes);
      const after = recorder('after reload');
      page2.handshake();
      page2.subscribe(channel, after);
      const resumed = await handshakes.next();
      assert.equal(resumed.ext.reload, true);
      await waitFor(() => page2.getStatus() === 'connected', { what: 'connected' });
      assert.equal(page2.getClientId(), clientId, 'the same session');
      assert.equal(page2.getTransport(), transport);
      assert.equal((await after.next()).data, 'while reloading');
      await callback((done) => bob.publish(channel, 'after', done));
      assert.equal((await after.next()).data, 'after');
      assert.equal(wire.includes('/meta/handshake'), false, 'no handshake went to the server');
      assert.equal(storage.items.size, 0, 'the saved state is used once');
      assert.deepEqual(after.items.map((m) => m.data), ['while reloading', 'after'], 'nothing twice');
    });

    it('a reloaded page whose session is gone handshakes again and subscribes again', async () => {
      const storage = fakeSessionStorage();
      const channel = `/chat/${transport}-reload-expired`;
      const page1 = client();
      page1.registerExtension('reload', new ReloadExtension({ storage }));
      await connect(page1);
      assert.equal(page1.reload(), true);
      const stale = page1.getClientId();
      await stop(page1); // the session ends on the server

      const page2 = client();
      page2.registerExtension('reload', new ReloadExtension({ storage }));
      const handshakes = recorder('handshake');
      page2.addListener('/meta/handshake', handshakes);
      const received = recorder('received');
      page2.handshake();
      page2.subscribe(channel, received);
      assert.equal((await handshakes.next()).ext.reload, true);
      const real = await handshakes.next();
      assert.equal(real.successful, true);
      assert.notEqual(real.clientId, stale);
      await waitFor(() => page2.getStatus() === 'connected' && page2.getClientId() === real.clientId, { what: 'the new session' });
      const bob = client();
      await connect(bob);
      await callback((done) => bob.publish(channel, 'hello', done));
      assert.equal((await received.next()).data, 'hello');
    });
  });
}
