// The chat page cut off from the network while others talk, in a real browser (Debian's
// Chromium, driven by playwright-core), against a demo server with history on /chat/** and a
// short maxInterval (1 s). The page reaches the server through a TCP proxy the test cuts, and
// stays cut off until the server has swept its session (the room's member list, which bob
// watches, loses alice: an event, not a sleep); then the page handshakes again and recovers
// what was said meanwhile from the room's history.
import { describe, it, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { startDemo } from '../support/demo-server.js';
import { startProxy } from '../support/proxy.js';
import { newClient, connect, subscribe, callback, waitFor, recorder, stop } from '../support/util.js';
import { requireChromium, launchChromium, openChat, lineFrom, lines, closeAll } from './support/browser.js';

requireChromium();

const POLL = { polling: 20 };

describe('the chat page cut off', () => {
  let browser;
  let server;
  let proxy;
  let bob;
  let members;
  let pages;

  before(async () => { browser = await launchChromium(); });
  after(async () => { await browser?.close(); });
  afterEach(async () => {
    const problems = await closeAll(...pages);
    await stop(bob);
    await proxy?.close();
    await server?.kill();
    // A page cut off logs its failed requests as console errors: only page errors count here.
    assert.deepEqual(problems.filter((p) => p.startsWith('page error')), [], 'the pages had no errors');
  });

  /**
   * A demo with `historySize` and a maxInterval of 1 s, alice's page behind a proxy, and bob (a
   * Node client) watching the lobby's member list.
   */
  async function setUp(historySize, transport) {
    server = await startDemo({ args: ['--history-size', String(historySize), '--history-ttl', '5m', '--max-interval', '1000'] });
    proxy = await startProxy({ port: server.port });
    pages = [];
    bob = newClient(server.url, 'websocket');
    await connect(bob);
    members = recorder('members');
    await subscribe(bob, '/members/lobby', members);
    const alice = await openChat(browser, { origin: proxy.url('').replace(/\/$/, '') }, { user: 'alice', query: `?transport=${transport}` });
    pages.push(alice);
    await waitFor(() => members.items.some((m) => m.data.includes('alice')), { what: 'alice in the lobby' });
    return alice;
  }

  const say = async (text) => {
    const reply = await callback((done) => bob.publish('/chat/lobby', { user: 'bob', text }, done));
    assert.equal(reply.successful, true);
  };

  /** Cuts the page's network until the server swept its session (its maxInterval passed without a connect). */
  async function cutOff(page) {
    const clientId = await page.evaluate(() => window.chat.clientId());
    const seen = members.items.length;
    proxy.cut();
    await waitFor(() => members.items.slice(seen).some((m) => !m.data.includes('alice')), { timeout: 15000, what: 'the server to sweep alice\'s session' });
    return clientId;
  }

  for (const transport of ['websocket', 'long-polling']) {
    it(`over ${transport}, shows every message said while it was away, once, with no gap`, async () => {
      const alice = await setUp(100, transport);
      await say('before the cut');
      await lineFrom(alice, 'bob', 'before the cut');

      const clientId = await cutOff(alice);
      for (const text of ['while away 1', 'while away 2', 'while away 3']) {
        await say(text);
      }
      proxy.resume();

      await lineFrom(alice, 'bob', 'while away 3');
      await alice.waitForFunction((old) => window.chat.status() === 'connected' && window.chat.clientId() !== old, clientId, POLL);
      await say('after');
      await lineFrom(alice, 'bob', 'after');
      assert.deepEqual((await lines(alice)).filter((l) => l.startsWith('bob: ')),
        ['bob: before the cut', 'bob: while away 1', 'bob: while away 2', 'bob: while away 3', 'bob: after']);
      assert.deepEqual(await alice.evaluate(() => window.chat.recovered()), [['/chat/lobby', 3]]);
      assert.equal(await alice.$('#log li.gap'), null, 'no gap notice');
    });
  }

  it('says so when the room\'s history no longer holds what was said while it was away', async () => {
    const alice = await setUp(2, 'websocket');
    await say('before the cut');
    await lineFrom(alice, 'bob', 'before the cut');

    await cutOff(alice);
    for (let i = 1; i <= 4; i++) {
      await say(`lost ${i}`); // 4 > the history's 2
    }
    proxy.resume();

    const notice = await alice.waitForSelector('#log li.gap', { state: 'attached' });
    assert.match(await notice.textContent(), /Some messages in lobby could not be recovered \(trimmed\)/);
    await say('after');
    await lineFrom(alice, 'bob', 'after');
    assert.deepEqual((await lines(alice)).filter((l) => l.startsWith('bob: ')), ['bob: before the cut', 'bob: after'], 'nothing of the gap is shown');
  });
});
