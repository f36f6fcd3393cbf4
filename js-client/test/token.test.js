// TokenExtension (docs/security.md#token-authentication-jwt): the token in the handshake, and the
// refresh flow on /service/token, against an in-process fake server; then, per transport, against
// the demo server with --token-secret (its GET /token mints the tokens).
import { describe, it, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { TokenExtension, TOKEN_CHANNEL, REFRESHABLE } from '../src/index.js';
import { TokenExtension as FromPath } from '../src/extensions/token.js';
import { FakeServer } from './support/fake-server.js';
import { startDemo } from './support/demo-server.js';
import { TRANSPORTS, newClient, connect, subscribe, stop, callback, waitFor } from './support/util.js';

describe('TokenExtension', () => {
  const clients = [];
  afterEach(() => {
    for (const client of clients.splice(0)) {
      client.abort();
    }
  });

  function connected(server, extension) {
    const client = server.client();
    clients.push(client);
    client.registerExtension('token', extension);
    client.handshake();
    return client;
  }

  it('is the class the package exports, and refuses to be made without a token or a refresh', () => {
    assert.equal(FromPath, TokenExtension);
    assert.throws(() => new TokenExtension({ refresh: () => 't' }), /token string/);
    assert.throws(() => new TokenExtension({ token: 't' }), /refresh function/);
  });

  it('puts the token in the ext of every handshake, and only there', async () => {
    const server = new FakeServer();
    connected(server, new TokenExtension({ token: 'first', refresh: () => 'next' }));
    await waitFor(() => server.holding, { what: 'the held connect' });
    assert.deepEqual(server.sentOn('/meta/handshake').map((m) => m.ext && m.ext.token), ['first']);
    assert.ok(server.sentOn('/meta/connect').every((m) => !m.ext || !('token' in m.ext)));
  });

  it('answers a refresh request with the new token on the same session, and handshakes with it later', async () => {
    const server = new FakeServer();
    const extension = new TokenExtension({ token: 'first', refresh: async () => 'second' });
    connected(server, extension);
    await waitFor(() => server.holding, { what: 'the held connect' });
    const clientId = server.clientId;

    server.deliver({ channel: TOKEN_CHANNEL, data: { action: 'refresh', exp: 1 } });
    await waitFor(() => server.sentOn(TOKEN_CHANNEL).length === 1, { what: 'the new token' });
    assert.deepEqual(server.sentOn(TOKEN_CHANNEL)[0].data, { token: 'second' });
    assert.equal(server.sentOn(TOKEN_CHANNEL)[0].clientId, clientId);
    assert.equal(server.sentOn('/meta/handshake').length, 1, 'no new handshake');
    assert.equal(extension.token, 'second');

    server.answerConnect({ successful: false, error: '402:token_expired:session_expired', advice: { reconnect: 'handshake', interval: 0 } });
    await waitFor(() => server.sentOn('/meta/handshake').length === 2, { what: 'the second handshake' });
    assert.equal(server.sentOn('/meta/handshake')[1].ext.token, 'second');
  });

  it('sends nothing when refresh fails, and tells onError', async () => {
    const server = new FakeServer();
    const errors = [];
    connected(server, new TokenExtension({ token: 'first', refresh: async () => { throw new Error('auth server down'); }, onError: (e) => errors.push(e) }));
    await waitFor(() => server.holding, { what: 'the held connect' });

    server.deliver({ channel: TOKEN_CHANNEL, data: { action: 'refresh' } });
    await waitFor(() => errors.length === 1, { what: 'the error' });
    assert.equal(errors[0].message, 'auth server down');
    server.deliver({ channel: TOKEN_CHANNEL, data: { action: 'refused', error: '403:token_subject_invalid:refresh_denied' } });
    await waitFor(() => errors.length === 2, { what: 'the refusal' });
    assert.equal(errors[1], '403:token_subject_invalid:refresh_denied');
    assert.equal(server.sentOn(TOKEN_CHANNEL).length, 0);
  });
});

describe('TokenExtension after a handshake refused for its token', () => {
  const EXPIRED = { error: '403:token_expired:handshake_denied', advice: { reconnect: 'none', interval: 0 } };
  const clients = [];
  afterEach(() => {
    for (const client of clients.splice(0)) {
      client.abort();
    }
  });

  /** A connected client of `server` subscribed to /chat/a, on the token 'old'; `refresh` counted. */
  async function cutOff(server, refresh, errors, refuse = (m) => (m.ext.token === 'old' ? EXPIRED : null)) {
    const calls = { refresh: 0 };
    const extension = new TokenExtension({ token: 'old', refresh: () => { calls.refresh++; return refresh(); }, onError: (e) => errors.push(e) });
    const client = server.client();
    clients.push(client);
    client.registerExtension('token', extension);
    client.handshake();
    await waitFor(() => server.holding, { what: 'the held connect' });
    client.subscribe('/chat/a', () => {});
    await waitFor(() => server.sentOn('/meta/subscribe').length === 1, { what: 'the subscription' });
    // From now on the server takes no 'old' token, and cuts the session off as after the grace period.
    server.refuseHandshake = refuse;
    server.answerConnect({ successful: false, error: '402:token_expired:session_expired', advice: { reconnect: 'handshake', interval: 0 } });
    return { client, calls };
  }

  const tokens = (server) => server.sentOn('/meta/handshake').map((m) => m.ext.token);

  it('asks refresh once and handshakes again with the new token, subscribing again', async () => {
    assert.deepEqual(REFRESHABLE, ['token_expired', 'token_missing']);
    const server = new FakeServer();
    const errors = [];
    const { client, calls } = await cutOff(server, async () => 'new', errors);
    const handshakes = [];
    client.addListener('/meta/handshake', (m) => handshakes.push(m));

    await waitFor(() => server.sentOn('/meta/subscribe').length === 2, { what: 'the subscription again' });
    assert.deepEqual(tokens(server), ['old', 'old', 'new']);
    assert.equal(server.sentOn('/meta/subscribe')[1].clientId, server.clientId);
    await waitFor(() => client.getStatus() === 'connected', { what: 'status connected' });
    assert.equal(calls.refresh, 1);
    assert.deepEqual(errors, []);
    assert.deepEqual(handshakes.map((m) => m.successful), [false, true], 'the listeners hear the refusal, then the way back');
  });

  it('lets a refresh that keeps giving bad tokens cost one handshake, then disconnects', async () => {
    const server = new FakeServer();
    const errors = [];
    const { client, calls } = await cutOff(server, async () => 'also-expired', errors, (m) => (m.ext.token === 'new' ? null : EXPIRED));

    await waitFor(() => client.getStatus() === 'disconnected', { what: 'status disconnected' });
    assert.deepEqual(tokens(server), ['old', 'old', 'also-expired']);
    assert.equal(calls.refresh, 1);
    assert.deepEqual(errors, ['403:token_expired:handshake_denied']);

    // A handshake of the application's own is heard as such: no refusal of the extension's before it.
    client.getExtension('token').setToken('new');
    await connect(client);
    assert.deepEqual(tokens(server), ['old', 'old', 'also-expired', 'new']);
    assert.equal(calls.refresh, 1);
  });

  it('gives the refusal to the client when refresh fails', async () => {
    const server = new FakeServer();
    const errors = [];
    const { client, calls } = await cutOff(server, async () => { throw new Error('auth server down'); }, errors);
    const refusals = [];
    client.addListener('/meta/handshake', (m) => refusals.push(m));

    await waitFor(() => client.getStatus() === 'disconnected', { what: 'status disconnected' });
    assert.deepEqual(tokens(server), ['old', 'old']);
    assert.equal(calls.refresh, 1);
    assert.equal(errors[0].message, 'auth server down');
    assert.deepEqual(refusals.map((m) => [m.error, m.advice.reconnect]), [['403:token_expired:handshake_denied', 'none']]);
  });

  it('asks nothing of refresh for a refusal a new token cannot cure', async () => {
    const server = new FakeServer();
    let calls = 0;
    server.refuseHandshake = () => ({ error: '403:token_signature_invalid:handshake_denied', advice: { reconnect: 'none' } });
    const client = server.client();
    clients.push(client);
    client.registerExtension('token', new TokenExtension({ token: 'forged', refresh: () => { calls++; return 'new'; } }));
    const reply = await callback((done) => client.handshake(done), { what: 'handshake reply' });
    assert.equal(reply.error, '403:token_signature_invalid:handshake_denied');
    await waitFor(() => client.getStatus() === 'disconnected', { what: 'status disconnected' });
    assert.equal(calls, 0);
    assert.equal(server.sentOn('/meta/handshake').length, 1);
  });
});

describe('TokenExtension against the demo with --token-secret', () => {
  let server;
  const SECRET = 'a node test secret of 32 bytes or more';
  before(async () => { server = await startDemo({ args: ['--token-secret', SECRET] }); });
  after(async () => { await server.kill(); });

  async function mint(user) {
    const reply = await fetch(`${server.origin}/token?user=${encodeURIComponent(user)}`);
    assert.equal(reply.status, 200);
    return (await reply.json()).token;
  }

  for (const transport of TRANSPORTS) {
    describe(`over ${transport}`, () => {
      const clients = [];
      afterEach(async () => { await stop(...clients.splice(0)); });
      const client = () => {
        const c = newClient(server.url, transport);
        clients.push(c);
        return c;
      };

      it('is refused without a token, with the reason', async () => {
        const reply = await callback((done) => client().handshake(done), { what: 'handshake reply' });
        assert.equal(reply.successful, false);
        assert.equal(reply.error, '403:token_missing:handshake_denied');
      });

      it('with an expired token, is refused, then comes back by itself with a token from refresh', async () => {
        const expired = hs256({ sub: 'alice', exp: Math.floor(Date.now() / 1000) - 3600, subscribe: ['/chat/**'], publish: ['/chat/**'] }, SECRET);
        const c = client();
        const errors = [];
        c.registerExtension('token', new TokenExtension({ token: expired, refresh: () => mint('alice'), onError: (e) => errors.push(e) }));
        const replies = [];
        c.addListener('/meta/handshake', (m) => replies.push(m));
        c.handshake();
        await waitFor(() => c.getStatus() === 'connected', { what: 'status connected' });
        assert.deepEqual(replies.map((m) => m.successful ? 'in' : m.error), ['403:token_expired:handshake_denied', 'in']);
        assert.deepEqual(errors, []);
        await subscribe(c, '/chat/token-back', () => {});
      });

      it('is refused with a forged token', async () => {
        const token = await mint('alice');
        const [header, payload] = token.split('.');
        const forged = `${header}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url')), sub: 'root' })).toString('base64url')}.${token.split('.')[2]}`;
        const c = client();
        c.registerExtension('token', new TokenExtension({ token: forged, refresh: () => forged }));
        const reply = await callback((done) => c.handshake(done), { what: 'handshake reply' });
        assert.equal(reply.error, '403:token_signature_invalid:handshake_denied');
      });

      it('with a minted token, subscribes and publishes where the claims allow and nowhere else', async () => {
        const alice = client();
        alice.registerExtension('token', new TokenExtension({ token: await mint('alice'), refresh: () => mint('alice') }));
        await connect(alice);
        const received = [];
        await subscribe(alice, '/chat/token-room', (m) => received.push(m.data));
        const published = await callback((done) => alice.publish('/chat/token-room', { text: 'hi' }, done), { what: 'publish reply' });
        assert.equal(published.successful, true);
        await waitFor(() => received.length === 1, { what: 'the message' });
        const refused = await callback((done) => alice.subscribe('/event/orders', () => {}, done), { what: 'subscribe reply' });
        assert.equal(refused.error, '403:denied_by_security_policy:subscribe_denied');
        const denied = await callback((done) => alice.publish('/event/orders', { n: 1 }, done), { what: 'publish reply' });
        assert.equal(denied.error, '403:denied_by_security_policy:publish_denied');
      });
    });
  }
});

/** An HS256 JWT of `claims`, signed with `secret`. */
function hs256(claims, secret) {
  const part = (json) => Buffer.from(JSON.stringify(json)).toString('base64url');
  const signed = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`;
  return `${signed}.${createHmac('sha256', secret).update(signed).digest('base64url')}`;
}
