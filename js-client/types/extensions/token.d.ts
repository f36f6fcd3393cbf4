// Types of bayeux-client/extensions/token: the same class as the package's main entry exports.
export { TokenExtension, TOKEN_CHANNEL, REFRESHABLE } from '../index.js';
