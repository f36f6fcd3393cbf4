// Types of bayeux-client/extensions/timesync: the same class as the package's main entry exports.
export { TimesyncExtension } from '../index.js';
