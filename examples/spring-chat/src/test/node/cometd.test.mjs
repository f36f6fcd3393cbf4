// The Spring chat example with CometD's JavaScript client (npm "cometd", in Node through
// "cometd-nodejs-client"), unmodified, over WebSocket and long-polling.
import { describe, it, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { URL, load, within, Inbox } from './support.mjs';

const { adapt } = await load('cometd-nodejs-client');
const { CometD } = await load('cometd');
adapt();

for (const transport of ['websocket', 'long-polling']) {
  describe(`CometD over ${transport}`, { timeout: 60000 }, () => {
    const clients = [];
    afterEach(async () => {
      await Promise.allSettled(clients.splice(0).map((c) => within('disconnect', (done) => c.disconnect(done), 5000)));
    });

    async function connected(name) {
      const cometd = new CometD(name);
      for (const type of cometd.getTransportTypes()) {
        if (type !== transport) {
          cometd.unregisterTransport(type);
        }
      }
      cometd.configure({ url: URL, logLevel: 'warn' });
      clients.push(cometd);
      const reply = await within('handshake', (done) => cometd.handshake(done));
      assert.equal(reply.successful, true, JSON.stringify(reply));
      assert.equal(cometd.getTransport().type, transport);
      return cometd;
    }

    it('joins a room, chats, and has a too long message refused', async () => {
      const room = `cometd-${transport}`;
      const alice = await connected('alice');
      const chat = new Inbox();
      const subscribed = await within('subscribe', (done) => alice.subscribe(`/chat/${room}`, (m) => chat.push(m), done));
      assert.equal(subscribed.successful, true, JSON.stringify(subscribed));
      const joined = await within('chat/join', (done) => alice.remoteCall('chat/join', { room, user: 'alice' }, 5000, done));
      assert.deepEqual(joined.data, ['alice']);

      const published = await within('publish', (done) => alice.publish(`/chat/${room}`, { user: 'alice', text: 'hi' }, done));
      assert.equal(published.successful, true, JSON.stringify(published));
      assert.deepEqual((await chat.next('the chat message')).data, { user: 'alice', text: 'hi' });

      const refused = await within('publish', (done) => alice.publish(`/chat/${room}`, { user: 'alice', text: 'x'.repeat(21) }, done));
      assert.equal(refused.successful, false, JSON.stringify(refused));
    });
  });
}
