// Types of bayeux-client/extensions/ack: the same class as the package's main entry exports.
export { AckExtension } from '../index.js';
