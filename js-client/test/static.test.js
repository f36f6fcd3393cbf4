// The demo server serves the client's modules under /js/, as a page would load them.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { startDemo } from './support/demo-server.js';

describe('the demo server', () => {
  let server;
  before(async () => { server = await startDemo(); });
  after(async () => { await server.kill(); });

  it('serves the client entry point as JavaScript under /js/', async () => {
    const response = await fetch(`${server.origin}/js/index.js`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type'), /^text\/javascript/);
    assert.equal(await response.text(), await readFile(new URL('../src/index.js', import.meta.url), 'utf8'));
  });

  it('serves the modules the entry point imports, transports and extensions included', async () => {
    for (const file of ['client.js', 'session.js', 'transports/websocket.js', 'extensions/ack.js']) {
      const response = await fetch(`${server.origin}/js/${file}`);
      assert.equal(response.status, 200, file);
      assert.match(response.headers.get('content-type'), /^text\/javascript/, file);
    }
  });
});
