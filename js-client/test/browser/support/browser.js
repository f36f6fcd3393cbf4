// Drives Debian's Chromium (never a downloaded browser) with playwright-core, and opens the
// demo's chat page in it. Every page gets its own browser context: its own cookies and
// sessionStorage, as two people on two machines.
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';

/** The browser the tests drive: BAYEUX_CHROMIUM, else Debian's `chromium` package. */
export const CHROMIUM = process.env.BAYEUX_CHROMIUM || '/usr/bin/chromium';

// waitForFunction polls on animation frames by default, which a page in the background gets rarely.
const POLL = { polling: 20 };

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Throws, saying how to install it, when Chromium is missing: the browser tests fail, never skip. */
export function requireChromium() {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is missing (${CHROMIUM}); the browser tests need it. Install Debian's package: `
      + '`apt-get update && apt-get install -y chromium` (as root; bin/test does it when run as root), or set BAYEUX_CHROMIUM to a Chromium binary. '
      + '`mvn verify -Djs.browser.skip=true` skips the browser tests.');
  }
}

/**
 * Launches Chromium headless. Playwright gives each launch a fresh, temporary
 * --user-data-dir (and removes it on close).
 */
export async function launchChromium() {
  requireChromium();
  return chromium.launch({ executablePath: CHROMIUM, headless: true, chromiumSandbox: false, args: ARGS, timeout: 30000 });
}

/**
 * A chat page of `server` in a new context: `query` is the page's query string (e.g.
 * '?transport=long-polling'), `noWebSocket` removes `window.WebSocket` before any script runs.
 * With `user`, joins `room` and waits until connected and listed among the members.
 * The page records its uncaught errors and console errors in `page.problems`.
 */
export async function openChat(browser, server, { user, room = 'lobby', query = '', noWebSocket = false } = {}) {
  const context = await browser.newContext({ viewport: { width: 900, height: 640 } });
  context.setDefaultTimeout(10000);
  if (noWebSocket) {
    await context.addInitScript(() => { delete window.WebSocket; });
  }
  const page = await context.newPage();
  page.problems = [];
  page.on('pageerror', (x) => page.problems.push(`page error: ${x.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') {
      page.problems.push(`console error: ${m.text()}`);
    }
  });
  await page.goto(`${server.origin}/${query}`);
  if (user) {
    await join(page, user, room);
  }
  return page;
}

/** Fills the join form and waits until the page is connected and `user` is a member. */
export async function join(page, user, room = 'lobby') {
  await page.fill('#user', user);
  await page.fill('#room', room);
  await page.click('#join button');
  await connected(page);
  await page.waitForFunction((name) => [...document.querySelectorAll('#members li')].some((li) => li.textContent === name), user, POLL);
}

/** Waits for the status 'connected'. */
export async function connected(page) {
  await page.waitForSelector('body[data-status="connected"]', { state: 'attached' });
}

/** Sends `text` from the message box. */
export async function say(page, text) {
  await page.fill('#message', text);
  await page.press('#message', 'Enter');
}

/** Waits until the member list reads exactly `names` (in order) and returns it. */
export async function membersAre(page, names) {
  await page.waitForFunction((expected) => JSON.stringify([...document.querySelectorAll('#members li')].map((li) => li.textContent)) === expected,
    JSON.stringify(names), POLL);
  return page.$$eval('#members li', (items) => items.map((li) => li.textContent));
}

/** Waits for a chat line by `user` saying `text` (compared as text) and returns that line's element. */
export async function lineFrom(page, user, text) {
  const handle = await page.waitForFunction(([who, what]) => [...document.querySelectorAll('#log li.message')]
    .find((li) => li.querySelector('.user').textContent === who && li.lastChild.textContent === what), [user, text], POLL);
  return handle.asElement();
}

/** The text of the chat lines, `user: text`. */
export function lines(page) {
  return page.$$eval('#log li.message', (items) => items.map((li) => `${li.querySelector('.user').textContent}: ${li.lastChild.textContent}`));
}

/** Closes the pages' contexts and returns the problems they recorded. */
export async function closeAll(...pages) {
  const problems = pages.filter(Boolean).flatMap((p) => p.problems);
  await Promise.all(pages.filter(Boolean).map((p) => p.context().close()));
  return problems;
}
