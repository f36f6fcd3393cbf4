// Failures: a server that goes away and comes back, a session the server forgets, advice,
// WebSocket that cannot open, requests that get no answer. Once per transport where it applies.
import { describe, it, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { startDemo } from './support/demo-server.js';
import {
  TRANSPORTS, newClient, connect, subscribe, stop, recorder, callback, waitFor, browserFetch, tappedWebSocket, manualTimers,
} from './support/util.js';
import { BayeuxClient } from '../src/index.js';

let shared;
before(async () => { shared = await startDemo(); });
after(async () => { await shared.kill(); });

/**
 * Options that let a test rewrite what the server sends, on either transport: `rewrite(messages)`
 * returns the messages the client gets. `cut()` breaks WebSocket connections (a no-op for
 * long-polling, where every request is a connection of its own).
 */
async function rewriting(transport, rewrite) {
  if (transport === 'long-polling') {
    return { options: { fetch: browserFetch({ rewrite }) }, cut: () => {} };
  }
  const WebSocket = await tappedWebSocket({ filter: (text) => JSON.stringify(rewrite(JSON.parse(text))) });
  return { options: { WebSocket }, cut: () => WebSocket.cut() };
}

/** The spacing between consecutive times. */
const gaps = (times) => times.slice(1).map((t, i) => t - times[i]);

for (const transport of TRANSPORTS) {
  describe(`over ${transport}`, () => {
    const clients = [];
    const client = (options) => {
      const c = newClient(shared.url, transport, options);
      clients.push(c);
      return c;
    };
    afterEach(async () => { await stop(...clients.splice(0)); });

    it('backs off while the server is down, then handshakes again, subscribes again and gets messages', async () => {
      const server = await startDemo();
      const url = server.url;
      const timers = manualTimers();
      const c = newClient(url, transport, { backoffIncrement: 200, maxBackoff: 800, timers });
      const other = newClient(url, transport);
      try {
        const failures = [];
        c.addListener('/meta/connect', (m) => { if (!m.successful) failures.push(timers.now); });
        const first = await connect(c);
        const received = recorder('received');
        const channel = `/chat/${transport}-comeback`;
        await subscribe(c, channel, received);

        // From here the client's clock moves only from one of its timers to the next: each attempt
        // fails (nothing listens), and the test runs the timer it set for the next one.
        timers.stop();
        await server.kill();
        const waits = [];
        for (let attempt = 1; attempt <= 6; attempt++) {
          await waitFor(() => failures.length >= attempt, { what: `failed attempt ${attempt}` });
          waits.push(timers.runNext());
        }
        await waitFor(() => failures.length >= 7, { what: 'failed attempt 7' });
        // Attempts at 0, +200, +400, +600, +800, +800...: never a loop.
        assert.deepEqual(waits, [200, 400, 600, 800, 800, 800], 'the back-offs, each after a failed attempt');
        assert.deepEqual(gaps(failures), [200, 400, 600, 800, 800, 800], `the failures at ${failures}`);
        assert.equal(c.getBackoffPeriod(), 800);
        assert.notEqual(c.getStatus(), 'connected');
        c.publish(channel, 'sent while down');

        const restarted = await startDemo({ port: server.port });
        timers.start();
        try {
          await waitFor(() => c.getStatus() === 'connected', { timeout: 10000, what: 'the client back' });
          assert.notEqual(c.getClientId(), first.clientId, 'a new session');
          assert.equal(c.getBackoffPeriod(), 0);
          await waitFor(() => received.items.some((m) => m.data === 'sent while down'), { what: 'the message published while down' });
          await connect(other);
          await callback((done) => other.publish(channel, 'after', done));
          await waitFor(() => received.items.some((m) => m.data === 'after'), { what: 'a message after the restart' });
        } finally {
          await stop(c, other);
          await restarted.kill();
        }
      } finally {
        c.abort();
        other.abort();
        await server.kill();
      }
    });

    it('handshakes again and restores subscriptions when the server forgets the session', async () => {
      // A short hold, so that the next connect reply (the forged one) comes within a second even
      // when the 'wake' message below rides in the publish response instead of the held connect.
      const server = await startDemo({ args: ['--timeout', '1000'] });
      let forget = false;
      const { options, cut } = await rewriting(transport, (messages) => messages.map((m) => {
        if (forget && m.channel === '/meta/connect') {
          forget = false;
          return { id: m.id, channel: m.channel, successful: false, error: '402::session_unknown', advice: { reconnect: 'handshake', interval: 0 } };
        }
        return m;
      }));
      try {
        const c = newClient(server.url, transport, options);
        clients.push(c);
        const handshakes = recorder('handshake');
        c.addListener('/meta/handshake', handshakes);
        await connect(c);
        const received = recorder('received');
        const channel = `/chat/${transport}-forgotten`;
        await subscribe(c, channel, received);
        const firstId = c.getClientId();
        forget = true;
        // The next connect reply is the forged one: over long-polling a delivery ends the held
        // connect; over WebSocket the connection is cut and the client connects again at once.
        cut();
        await callback((done) => c.publish(channel, 'wake', done)).catch(() => {});
        await waitFor(() => handshakes.items.length === 2, { what: 're-handshake' });
        await waitFor(() => c.getStatus() === 'connected' && c.getClientId() !== firstId, { what: 'the new session' });
        const publisher = newClient(server.url, transport);
        clients.push(publisher);
        await connect(publisher);
        await callback((done) => publisher.publish(channel, 'again', done));
        await waitFor(() => received.items.some((m) => m.data === 'again'), { what: 'delivery after the re-handshake' });
      } finally {
        await stop(...clients.splice(0));
        await server.kill();
      }
    });

    it('stops when the server advises reconnect none', async () => {
      const { options } = await rewriting(transport, (messages) => messages.map((m) => (
        m.channel === '/meta/connect' ? { ...m, advice: { reconnect: 'none' } } : m)));
      const timers = manualTimers();
      const c = client({ ...options, timers });
      const outgoing = [];
      c.registerExtension('spy', { outgoing: (m) => { outgoing.push(m.channel); } });
      const connects = recorder('connect');
      c.addListener('/meta/connect', connects);
      const handshake = await callback((done) => c.handshake(done));
      assert.equal(handshake.successful, true);
      assert.equal((await connects.next()).successful, true);
      await waitFor(() => c.getStatus() === 'disconnected', { what: 'disconnected' });
      // The client sends only when told to or when one of its timers runs: with none left, nothing can follow.
      assert.equal(timers.pending, 0, 'no timer left to send anything');
      assert.deepEqual(outgoing, ['/meta/handshake', '/meta/connect'], 'nothing sent after reconnect none');
      assert.equal(c.getClientId(), null);
    });

    it('waits the advised interval before the next connect', async () => {
      const { options } = await rewriting(transport, (messages) => messages.map((m) => (
        m.channel === '/meta/connect' && m.successful ? { ...m, advice: { ...m.advice, reconnect: 'retry', interval: 400 } } : m)));
      const c = client(options);
      const sent = [];
      const replied = [];
      c.registerExtension('spy', { outgoing: (m) => { if (m.channel === '/meta/connect') sent.push(Date.now()); } });
      c.addListener('/meta/connect', () => replied.push(Date.now()));
      await connect(c);
      await waitFor(() => sent.length >= 2, { what: 'the second connect' });
      const gap = sent[1] - replied[0];
      assert.ok(gap >= 390 && gap < 1500, `the second connect left ${gap} ms after the first reply, advised 400`);
    });

    it('fails requests that get no answer within maxNetworkDelay', async () => {
      const silence = transport === 'long-polling'
        ? { fetch: (url, init) => new Promise((resolve, reject) => init.signal.addEventListener('abort', () => reject(new Error('aborted')))) }
        : { WebSocket: await tappedWebSocket({ filter: () => null }) };
      const c = client({ ...silence, maxNetworkDelay: 300 });
      const started = Date.now();
      const reply = await callback((done) => c.handshake(done), { timeout: 3000 });
      assert.equal(reply.successful, false);
      assert.equal(reply.failure.reason, 'timeout');
      const elapsed = Date.now() - started;
      assert.ok(elapsed >= 290 && elapsed < 2000, `failed after ${elapsed} ms`);
      assert.equal(c.getStatus(), 'handshaking', 'and tries again');
    });
  });
}

describe('transport fallback', () => {
  const clients = [];
  afterEach(async () => { await stop(...clients.splice(0)); });

  it('falls back to long-polling when WebSocket cannot open, and says so', async () => {
    const { WebSocket } = await import('ws');
    class Unreachable extends WebSocket {
      constructor() {
        super('ws://127.0.0.1:9/cometd'); // nothing listens on the discard port
      }
    }
    const c = new BayeuxClient({ url: shared.url, logLevel: 'off', WebSocket: Unreachable });
    clients.push(c);
    const changes = [];
    c.addStatusListener((status, transport) => changes.push(transport));
    await connect(c);
    assert.equal(c.getTransport(), 'long-polling');
    assert.deepEqual([...new Set(changes)], ['websocket', 'long-polling']);
    const received = recorder('received');
    await subscribe(c, '/chat/fallback', received);
    await callback((done) => c.publish('/chat/fallback', 'via long-polling', done));
    assert.equal((await received.next()).data, 'via long-polling');
  });

  it('stays on WebSocket when it works', async () => {
    const c = new BayeuxClient({ url: shared.url, logLevel: 'off' });
    clients.push(c);
    await connect(c);
    assert.equal(c.getTransport(), 'websocket');
  });

  it('polls no faster than the advised interval when the server reports multiple clients of one browser', async () => {
    const jar = new Map();
    const timers = new Map([['first', manualTimers()], ['second', manualTimers()]]);
    const first = newClient(shared.url, 'long-polling', { fetch: browserFetch({ jar }), timers: timers.get('first') });
    const second = newClient(shared.url, 'long-polling', { fetch: browserFetch({ jar }), timers: timers.get('second') });
    clients.push(first, second);
    // Whichever tab's connect the server held first, the other is the one advised: on a slow
    // machine first's held connect may arrive after second's, so both are watched. An advised
    // reply is noted with how many timers its client had asked for: the next one is its next poll.
    const advised = recorder('advice');
    const connects = { first: 0, second: 0 };
    for (const [name, c] of [['first', first], ['second', second]]) {
      c.addListener('/meta/connect', (m) => {
        if (m.advice && m.advice['multiple-clients']) {
          advised({ name, advice: m.advice, timer: timers.get(name).scheduled.length });
        }
      });
      c.registerExtension('spy', { outgoing: (m) => { if (m.channel === '/meta/connect') connects[name]++; } });
    }
    await connect(first);
    // Its next connect left (it is held once it arrives), so second's is the one usually advised.
    await waitFor(() => connects.first >= 2, { what: "first's second connect" });
    await connect(second);
    for (let reply = 1; reply <= 2; reply++) {
      const { name, advice, timer } = await advised.next(3000);
      assert.equal(advice.reconnect, 'retry');
      assert.ok(advice.interval > 0);
      const scheduled = timers.get(name).scheduled;
      await waitFor(() => scheduled.length > timer, { what: `${name}'s next poll` });
      assert.ok(scheduled[timer] >= advice.interval, `advised reply ${reply}: ${name} polls again after ${scheduled[timer]} ms, advised ${advice.interval}`);
    }
  });
});
