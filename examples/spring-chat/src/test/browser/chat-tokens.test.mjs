// The Spring chat's page in Debian's Chromium (driven by playwright-core, never a downloaded
// browser), against the example started by SpringChatBrowserIT with token authentication on.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { URL, load } from '../node/support.mjs';

const CHROMIUM = process.env.BAYEUX_CHROMIUM || '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) {
  throw new Error(`Chromium is missing (${CHROMIUM}): apt-get install -y chromium, or set BAYEUX_CHROMIUM; -Djs.browser.skip=true leaves this test out`);
}
const ORIGIN = new globalThis.URL(URL).origin;
const POLL = { polling: 20 };
const SCREENSHOT = fileURLToPath(new globalThis.URL('../../../target/screenshots/spring-chat-tokens.png', import.meta.url));

describe('the Spring chat page with token authentication', () => {
  let browser;
  const pages = [];

  before(async () => {
    const playwright = await load('playwright-core'); // CommonJS: its exports are the module's default
    const { chromium } = playwright.default ?? playwright;
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, chromiumSandbox: false, timeout: 30000,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'] });
  });
  after(async () => {
    await Promise.all(pages.map((p) => p.context().close()));
    await browser?.close();
  });

  /** A page of its own browser context that joined `room` as `user`; its errors are collected in `problems`. */
  async function joined(user, room = 'lobby') {
    const context = await browser.newContext();
    context.setDefaultTimeout(10000);
    const page = await context.newPage();
    page.problems = [];
    page.on('pageerror', (x) => page.problems.push(`page error: ${x.message}`));
    const tokens = [];
    page.on('response', (r) => r.url().startsWith(`${ORIGIN}/token?`) && tokens.push(r.status()));
    page.tokens = tokens;
    pages.push(page);
    await page.goto(`${ORIGIN}/`);
    await page.fill('#user', user);
    await page.fill('#room', room);
    await page.click('#join button');
    await page.waitForSelector('#say', { state: 'visible' });
    return page;
  }

  it('gets a token for its user, then chats with another page', async () => {
    const alice = await joined('alice');
    const bob = await joined('bob');
    assert.equal(alice.tokens[0], 200, 'the refused handshake made the page fetch a token');
    assert.ok(await alice.evaluate(() => window.chat.client.getExtension('token') !== undefined), 'the token extension is in place');
    await alice.waitForFunction(() => document.getElementById('members').textContent === 'In lobby: alice, bob', null, POLL);

    await alice.fill('#text', 'hello from a token');
    await alice.click('#say button');
    await bob.waitForFunction(() => [...document.querySelectorAll('#log li')].some((li) => li.textContent === 'alice: hello from a token'), null, POLL);
    assert.deepEqual([...alice.problems, ...bob.problems], []);
    await mkdir(path.dirname(SCREENSHOT), { recursive: true });
    await bob.screenshot({ path: SCREENSHOT });
  });

  it('fetches a new token when the server asks, and goes on in the same session', async () => {
    const dave = await joined('dave', 'porch');
    const session = await dave.evaluate(() => window.chat.client.getClientId());
    const fetched = dave.tokens.length;
    // SpringChatBrowserIT's tokens last 65 s, and the server asks for a new one 62 s before a token expires.
    const refreshed = await dave.waitForResponse((r) => r.url().startsWith(`${ORIGIN}/token?`), { timeout: 15000 });
    assert.equal(refreshed.status(), 200);
    assert.ok(dave.tokens.length > fetched);
    assert.equal(await dave.evaluate(() => window.chat.client.getClientId()), session, 'no new handshake');
    const reply = await dave.evaluate(() => new Promise((resolve) => window.chat.client.publish('/chat/porch', { user: 'dave', text: 'still here' }, resolve)));
    assert.equal(reply.successful, true, JSON.stringify(reply));
    assert.deepEqual(dave.problems, []);
  });

  it('is refused what its token does not allow: publishing beyond /chat/**', async () => {
    const carol = await joined('carol', 'garden');
    const reply = await carol.evaluate(() => new Promise((resolve) => window.chat.client.publish('/news/garden', { text: 'hi' }, resolve)));
    assert.equal(reply.successful, false);
    assert.match(reply.error, /^403:/);
    assert.deepEqual(carol.problems, []);
  });
});
