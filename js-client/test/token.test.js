// TokenExtension (docs/security.md#token-authentication): the token in the handshake, and the
// refresh flow on /service/token, against an in-process fake server.
import { describe, it, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { TokenExtension, TOKEN_CHANNEL } from '../src/index.js';
import { TokenExtension as FromPath } from '../src/extensions/token.js';
import { FakeServer } from './support/fake-server.js';
import { waitFor } from './support/util.js';

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
