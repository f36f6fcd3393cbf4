// The demo's admin page in a real browser (Debian's Chromium, driven by playwright-core): its
// figures and chart come from the demo's own /metrics and follow the chat's traffic.
import { describe, it, before, after, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { startDemo } from '../support/demo-server.js';
import { requireChromium, launchChromium, openChat, say, lineFrom, closeAll } from './support/browser.js';

requireChromium(); // before any test: one clear failure

const POLL = { polling: 20 };

describe('the admin page', () => {
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

  async function openAdmin() {
    const context = await browser.newContext({ viewport: { width: 900, height: 800 } });
    context.setDefaultTimeout(10000);
    const page = await context.newPage();
    page.problems = [];
    page.on('pageerror', (x) => page.problems.push(`page error: ${x.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') {
        page.problems.push(`console error: ${m.text()}`);
      }
    });
    await page.goto(`${server.origin}/admin.html?interval=200`);
    pages.push(page);
    return page;
  }

  function figure(page, id) {
    return page.textContent(`#${id}`);
  }

  it('shows the sessions, the messages in and out and their chart, from the server\'s meters', async () => {
    const admin = await openAdmin();
    await admin.waitForFunction(() => Number(document.getElementById('chart').dataset.points) >= 1, null, POLL);
    assert.equal(await figure(admin, 'sessions'), '0');
    assert.equal(await figure(admin, 'nodes'), '1');
    assert.match(await figure(admin, 'heap'), /^\d+\.\d MiB$/);

    const alice = await openChat(browser, server, { user: 'alice' });
    const bob = await openChat(browser, server, { user: 'bob' });
    pages.push(alice, bob);
    await say(alice, 'Hi Bob!');
    await lineFrom(bob, 'alice', 'Hi Bob!');

    await admin.waitForFunction(() => document.getElementById('sessions').textContent === '2', null, POLL);
    await admin.waitForFunction(() => Number(document.getElementById('in-total').textContent) > 0
      && Number(document.getElementById('out-total').textContent) > 0, null, POLL);
    assert.ok(Number(await figure(admin, 'channels')) > 0);
    assert.ok(Number(await figure(admin, 'subscriptions')) >= 2, 'both pages subscribed to the room');
    await admin.waitForFunction(() => Number(document.getElementById('chart').dataset.points) >= 3, null, POLL);
    assert.match(await figure(admin, 'status'), /^Updated /);
  });

  it('counts the nodes of an Oort cluster as they join and as one dies', async () => {
    const oort = ['--oort-secret', 'admin-page-test', '--oort-failure-timeout', '2000'];
    await server.kill();
    server = await startDemo({ args: oort });
    const second = await startDemo({ args: [...oort, '--oort-peers', server.url] });
    try {
      const admin = await openAdmin();
      await admin.waitForFunction(() => document.getElementById('nodes').textContent === '2', null, POLL);
      await second.kill();
      await admin.waitForFunction(() => document.getElementById('nodes').textContent === '1', null, POLL);
    } finally {
      await second.kill();
    }
  });
});
