// A TCP proxy on 127.0.0.1 (an ephemeral port) in front of a server, that a test can cut:
// `cut()` resets every connection through it and holds the new ones (their bytes wait,
// unanswered) until `resume()` lets them through, as a network that goes away and comes back.
// A held connection goes through the moment the network is back, so a client that tried again
// meanwhile reconnects then, without waiting out its back-off.
import net from 'node:net';

/** Starts a proxy to `target` (`{port, host}`); resolves with `{port, url(path), cut(), resume(), close()}`. */
export async function startProxy(target) {
  const pairs = new Set();  // [client, upstream] of each connection through
  const held = new Set();   // client sockets waiting for the network to come back
  let down = false;

  const pipe = (client) => {
    const upstream = net.connect(target.port, target.host || '127.0.0.1');
    const pair = [client, upstream];
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  };

  const server = net.createServer({ pauseOnConnect: true }, (client) => {
    client.on('error', () => client.destroy());
    if (down) {
      held.add(client);
      client.on('close', () => held.delete(client));
    } else {
      pipe(client);
    }
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();

  return {
    port,
    /** `http://127.0.0.1:<port><path>`. */
    url: (path = '/') => `http://127.0.0.1:${port}${path}`,
    /** The network goes: every connection is reset (no close frame, no FIN), new ones wait. */
    cut() {
      down = true;
      for (const [client, upstream] of [...pairs]) {
        client.resetAndDestroy();
        upstream.resetAndDestroy();
      }
      pairs.clear();
    },
    /** The network is back: the held connections go through, and new ones. */
    resume() {
      down = false;
      for (const client of [...held]) {
        held.delete(client);
        pipe(client);
      }
    },
    /** The number of connections through right now. */
    get connections() {
      return pairs.size;
    },
    /** The number of connections waiting for the network. */
    get waiting() {
      return held.size;
    },
    async close() {
      for (const [client, upstream] of [...pairs]) {
        client.destroy();
        upstream.destroy();
      }
      for (const client of held) {
        client.destroy();
      }
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
