// Types of bayeux-client/transports/long-polling: the same class as the package's main entry exports.
export { LongPollingTransport } from '../index.js';
