// Types of bayeux-client/transports/request-transport: the same class as the package's main entry exports.
export { RequestTransport } from '../index.js';
export type { Transport, TransportHost } from '../index.js';
