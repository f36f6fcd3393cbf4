// Types of bayeux-client/transports/callback-polling: the same class as the package's main entry exports.
export { CallbackPollingTransport } from '../index.js';
