/**
 * Promise-returning versions of the calls that have a reply, over a `BayeuxClient`.
 * A failed reply rejects with an Error whose `reply` is the reply.
 *
 * ```js
 * const p = promises(client);
 * await p.handshake();
 * const result = await p.remoteCall('echo', { hello: 'world' });
 * ```
 */
export function promises(client) {
  const settle = (start) => new Promise((resolve, reject) => start((reply) => {
    if (reply && reply.successful === false) {
      const error = new Error(`${reply.channel}: ${reply.error || (reply.failure && reply.failure.reason) || 'failed'}`);
      error.reply = reply;
      reject(error);
    } else {
      resolve(reply);
    }
  }));
  return Object.freeze({
    client,
    handshake: (props) => settle((done) => client.handshake(props || {}, done)),
    subscribe: (channel, callback, props) => {
      let handle;
      return settle((done) => { handle = client.subscribe(channel, callback, props || {}, done); }).then(() => handle);
    },
    unsubscribe: (handle, props) => settle((done) => client.unsubscribe(handle, props || {}, done)),
    publish: (channel, data, props) => settle((done) => client.publish(channel, data, props || {}, done)),
    remoteCall: (target, data, timeout) => settle((done) => client.remoteCall(target, data, timeout, done)).then((r) => r.data),
    disconnect: () => new Promise((resolve) => client.disconnect(resolve)),
  });
}
