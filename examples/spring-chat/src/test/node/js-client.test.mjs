// The Spring chat example with this project's JavaScript client, over WebSocket and long-polling.
import { describe, it, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { BayeuxClient } from '../../../../../js-client/src/index.js';
import { URL, load, within, Inbox } from './support.mjs';

const { default: WebSocket } = await load('ws');

for (const transport of ['websocket', 'long-polling']) {
  describe(`bayeux-client over ${transport}`, { timeout: 60000 }, () => {
    const clients = [];
    afterEach(async () => {
      await Promise.allSettled(clients.splice(0).map((c) => within('disconnect', (done) => c.disconnect(done), 5000)));
    });

    async function connected() {
      const client = new BayeuxClient({ url: URL, transports: [transport], logLevel: 'warn', WebSocket });
      clients.push(client);
      const reply = await within('handshake', (done) => client.handshake({}, done));
      assert.equal(reply.successful, true, JSON.stringify(reply));
      assert.equal(client.getTransport(), transport);
      return client;
    }

    it('joins a room, chats, and has a too long message refused', async () => {
      const room = `js-${transport}`;
      const alice = await connected();
      const chat = new Inbox();
      const subscribed = await within('subscribe', (done) => alice.subscribe(`/chat/${room}`, (m) => chat.push(m), {}, done));
      assert.equal(subscribed.successful, true, JSON.stringify(subscribed));
      const joined = await within('chat/join', (done) => alice.remoteCall('chat/join', { room, user: 'alice' }, done));
      assert.deepEqual(joined.data, ['alice']);

      const published = await within('publish', (done) => alice.publish(`/chat/${room}`, { user: 'alice', text: 'hi' }, {}, done));
      assert.equal(published.successful, true, JSON.stringify(published));
      assert.deepEqual((await chat.next('the chat message')).data, { user: 'alice', text: 'hi' });

      const refused = await within('publish', (done) => alice.publish(`/chat/${room}`, { user: 'alice', text: 'x'.repeat(21) }, {}, done));
      assert.equal(refused.successful, false, JSON.stringify(refused));
    });
  });
}
