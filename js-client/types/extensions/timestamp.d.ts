// Types of bayeux-client/extensions/timestamp: the same class as the package's main entry exports.
export { TimestampExtension } from '../index.js';
