// The demo's chat page in a real browser (Debian's Chromium, driven by playwright-core),
// against a real demo server started for each test.
import { describe, it, before, after, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { startDemo } from '../support/demo-server.js';
import { requireChromium, launchChromium, openChat, join, connected, say, membersAre, lineFrom, lines, closeAll } from './support/browser.js';

requireChromium(); // before any test: one clear failure

const SCREENSHOT = fileURLToPath(new URL('../../../examples/target/screenshots/chat.png', import.meta.url));

describe('the chat page', () => {
  let browser;
  let server;
  let pages;

  before(async () => { browser = await launchChromium(); });
  after(async () => { await browser?.close(); });
  beforeEach(async () => {
    server = await startDemo();
    pages = [];
  });
  afterEach(async () => {
    const problems = await closeAll(...pages);
    await server.kill();
    assert.deepEqual(problems, [], 'the pages had no errors');
  });

  async function open(options) {
    const page = await openChat(browser, server, options);
    pages.push(page);
    return page;
  }

  it('lets two people chat: names, members, messages both ways, markup shown as text, words masked', async () => {
    const alice = await open({ user: 'alice' });
    const bob = await open({ user: 'bob' });
    assert.deepEqual(await membersAre(alice, ['alice', 'bob']), ['alice', 'bob']);
    assert.deepEqual(await membersAre(bob, ['alice', 'bob']), ['alice', 'bob']);
    assert.equal(await alice.textContent('#transport'), 'websocket');
    assert.equal(await alice.textContent('#status'), 'connected');

    await say(alice, 'Hi Bob!');
    await lineFrom(bob, 'alice', 'Hi Bob!');
    await say(bob, 'Hello <b>Alice</b> & "friends", it\'s <script>alert(1)</script> time');
    const markup = await lineFrom(alice, 'bob', 'Hello <b>Alice</b> & "friends", it\'s <script>alert(1)</script> time');
    assert.equal(await markup.$('b, script'), null, 'the markup is text, not elements');
    await say(bob, 'darn, what the heck');
    await lineFrom(alice, 'bob', '****, what the ****');
    await lineFrom(bob, 'bob', '****, what the ****');
    assert.equal(await alice.$eval('#log li.mine .user', (e) => e.textContent), 'alice', 'her own lines are marked as hers');

    await mkdir(path.dirname(SCREENSHOT), { recursive: true });
    await alice.screenshot({ path: SCREENSHOT });
  });

  it('shows <b>x</b>, a "quote" and a typed entity literally, while the server escapes only <, > and &', async () => {
    const alice = await open({ user: 'alice' });
    const bob = await open({ user: 'bob' });
    await membersAre(alice, ['alice', 'bob']);
    await alice.evaluate(() => {
      window.received = [];
      window.chat.client.subscribe('/chat/lobby', (m) => window.received.push(m.data.text));
    });

    const typed = 'a <b>x</b> and a "quote", it\'s &lt; not <';
    await say(bob, typed);
    const shown = await lineFrom(alice, 'bob', typed);
    assert.equal(await shown.$('b'), null, 'the markup is text, not an element');
    assert.equal(await shown.evaluate((li) => li.lastChild.nodeType), 3, 'the message is one text node');
    await alice.waitForFunction(() => window.received.length > 0, null, { polling: 20 });
    assert.deepEqual(await alice.evaluate(() => window.received),
      ['a &lt;b&gt;x&lt;/b&gt; and a "quote", it\'s &amp;lt; not &lt;'], 'on the wire, quotes are as typed');
  });

  it('moves to another room and back out: the old room hears the leave, the new room the join', async () => {
    const alice = await open({ user: 'alice' });
    const bob = await open({ user: 'bob' });
    const carol = await open({ user: 'carol', room: 'garden' });
    await membersAre(bob, ['alice', 'bob']);

    await alice.fill('#new-room', 'garden');
    await alice.click('#switch button:not([type])');
    await membersAre(bob, ['bob']);
    await membersAre(carol, ['alice', 'carol']);
    await membersAre(alice, ['alice', 'carol']);
    assert.equal(await alice.textContent('#room-name'), 'garden');

    await say(bob, 'anyone in the lobby?');
    await say(alice, 'hi carol');
    await lineFrom(carol, 'alice', 'hi carol');
    await lineFrom(alice, 'alice', 'hi carol');
    await lineFrom(bob, 'bob', 'anyone in the lobby?');
    assert.ok(!(await lines(alice)).includes('bob: anyone in the lobby?'), 'the old room is not heard any more');

    await alice.click('#leave');
    await membersAre(carol, ['carol']);
    await alice.waitForSelector('body[data-status="disconnected"]', { state: 'attached' });
    assert.equal(await alice.isVisible('#join'), true, 'the join form is back');
    await alice.reload();
    assert.equal(await alice.isVisible('#join'), true, 'a page that left does not join again on reload');
  });

  it('falls back to long-polling by itself when the browser has no WebSocket, and chats with a WebSocket page', async () => {
    const alice = await open({ user: 'alice', noWebSocket: true });
    const bob = await open({ user: 'bob' });
    assert.equal(await alice.evaluate(() => typeof window.WebSocket), 'undefined');
    assert.equal(await alice.textContent('#transport'), 'long-polling');
    assert.equal(await alice.evaluate(() => window.chat.transport()), 'long-polling');
    assert.equal(await bob.textContent('#transport'), 'websocket');
    await membersAre(alice, ['alice', 'bob']);

    await say(alice, 'over long-polling');
    await lineFrom(bob, 'alice', 'over long-polling');
    await say(bob, 'over websocket');
    await lineFrom(alice, 'bob', 'over websocket');
  });

  it('uses the transport named in ?transport=', async () => {
    const carol = await open({ user: 'carol', query: '?transport=long-polling' });
    assert.equal(await carol.textContent('#transport'), 'long-polling');
    assert.equal(await carol.evaluate(() => typeof window.WebSocket), 'function', 'WebSocket was there, and not used');
    const dave = await open({ user: 'dave', query: '?transport=websocket' });
    assert.equal(await dave.textContent('#transport'), 'websocket');
    await say(dave, 'ping');
    await lineFrom(carol, 'dave', 'ping');
  });

  for (const transport of ['websocket', 'long-polling']) {
    it(`keeps the session across a page reload over ${transport}: same clientId, no handshake, same members, messages flowing`, async () => {
      const alice = await open({ user: 'alice', query: `?transport=${transport}` });
      const bob = await open({ user: 'bob' });
      await membersAre(alice, ['alice', 'bob']);
      await bob.evaluate(() => {
        window.memberLists = [];
        window.chat.client.subscribe('/members/lobby', (m) => window.memberLists.push(m.data));
      });
      const clientId = await alice.evaluate(() => window.chat.clientId());
      assert.match(clientId, /\w+/);
      assert.equal(await alice.getAttribute('body', 'data-client-id'), clientId);

      const sent = [];
      alice.on('websocket', (ws) => ws.on('framesent', (frame) => sent.push(String(frame.payload))));
      alice.on('request', (request) => request.method() === 'POST' && sent.push(request.postData() || ''));
      await alice.reload();
      await connected(alice);
      await membersAre(alice, ['alice', 'bob']);
      assert.equal(await alice.evaluate(() => window.chat.clientId()), clientId, 'the same session');
      assert.equal(await alice.getAttribute('body', 'data-client-id'), clientId);
      assert.equal(await alice.textContent('#transport'), transport);
      assert.ok(sent.some((text) => text.includes('/meta/connect')), `the reloaded page connects: ${sent}`);
      assert.ok(!sent.some((text) => text.includes('/meta/handshake')), `no handshake after the reload: ${sent}`);

      await say(bob, 'still there?');
      await lineFrom(alice, 'bob', 'still there?');
      await say(alice, 'yes');
      await lineFrom(bob, 'alice', 'yes');
      assert.deepEqual(await membersAre(bob, ['alice', 'bob']), ['alice', 'bob']);
      const seen = await bob.evaluate(() => window.memberLists);
      assert.ok(seen.every((names) => names.includes('alice')), `alice never left: ${JSON.stringify(seen)}`);
    });
  }
});

describe('the chat page with token authentication (--token-secret)', () => {
  let browser;
  let server;
  let pages;

  before(async () => {
    browser = await launchChromium();
    server = await startDemo({ args: ['--token-secret', 'a browser test secret of 32+ bytes'] });
  });
  after(async () => {
    const problems = await closeAll(...(pages || []));
    await server?.kill();
    await browser?.close();
    assert.deepEqual(problems, [], 'the pages had no errors');
  });

  it('gets a token from the demo when the server asks for one, then chats in the room its claims open', async () => {
    pages = [];
    const alice = await openChat(browser, server, { user: 'alice' });
    pages.push(alice);
    const bob = await openChat(browser, server, { user: 'bob' });
    pages.push(bob);
    assert.deepEqual(await membersAre(alice, ['alice', 'bob']), ['alice', 'bob']);
    assert.ok(await alice.evaluate(() => !!window.chat.client.getExtension('token')), 'the page uses a token');
    await say(alice, 'signed in');
    await lineFrom(bob, 'alice', 'signed in');
    // A subscription outside the token's claims is refused.
    const refused = await alice.evaluate(() => new Promise((resolve) => {
      window.chat.client.subscribe('/event/orders', () => {}, (reply) => resolve(reply.error));
    }));
    assert.equal(refused, '403:denied_by_security_policy:subscribe_denied');
  });
});
