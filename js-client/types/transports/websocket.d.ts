// Types of bayeux-client/transports/websocket: the same class as the package's main entry exports.
export { WebSocketTransport } from '../index.js';
