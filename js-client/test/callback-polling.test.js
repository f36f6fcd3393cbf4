// JSONP callback-polling, only when asked for, against the demo started with --jsonp. Node has
// no script elements: the loader fetches the script and runs it in a sandbox with the callback.
import { describe, it, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import vm from 'node:vm';
import { startDemo } from './support/demo-server.js';
import { connect, subscribe, stop, recorder, callback } from './support/util.js';
import { BayeuxClient } from '../src/index.js';

let server;
before(async () => { server = await startDemo({ args: ['--jsonp'] }); });
after(async () => { await server.kill(); });

const requests = [];

/** Loads a JSONP script the way a script element would, minus the browser: with the cookies. */
async function jsonpLoader(url, callbackName, signal, cookieJar) {
  requests.push(url);
  assert.ok(cookieJar, 'outside a browser the loader gets the client\'s cookie jar');
  const cookie = cookieJar.header(url);
  const response = await fetch(url, { signal, headers: cookie ? { cookie } : {} });
  cookieJar.store(url, response.headers.getSetCookie());
  if (!response.ok) {
    throw { reason: `HTTP ${response.status}`, httpCode: response.status };
  }
  assert.match(response.headers.get('content-type'), /^text\/javascript/);
  let replies;
  vm.runInNewContext(await response.text(), { [callbackName]: (r) => { replies = JSON.parse(JSON.stringify(r)); } }, { timeout: 1000 });
  return replies;
}

describe('callback-polling', () => {
  const clients = [];
  afterEach(async () => { await stop(...clients.splice(0)); });

  it('is not used unless asked for', () => {
    const c = new BayeuxClient({ url: server.url });
    assert.deepEqual(c.getTransportTypes(), ['websocket', 'long-polling']);
  });

  it('handshakes, subscribes, publishes, calls and disconnects over JSONP when it is the transport asked for', async () => {
    const c = new BayeuxClient({ url: server.url, logLevel: 'off', transports: ['callback-polling'], jsonpLoader });
    clients.push(c);
    const handshake = await connect(c);
    assert.ok(handshake.supportedConnectionTypes.includes('callback-polling'));
    assert.equal(c.getTransport(), 'callback-polling');
    const received = recorder('received');
    await subscribe(c, '/chat/jsonp', received);
    const reply = await callback((done) => c.publish('/chat/jsonp', { text: 'over jsonp' }, done));
    assert.equal(reply.successful, true);
    assert.deepEqual((await received.next()).data, { text: 'over jsonp' });
    const echo = await callback((done) => c.remoteCall('echo', 'ping', done));
    assert.equal(echo.data, 'ping');
    assert.equal((await callback((done) => c.disconnect(done))).successful, true);
    assert.ok(requests.every((url) => /[?&]jsonp=__bayeux_jsonp_\w+&message=/.test(url)), requests[0]);
  });
});
