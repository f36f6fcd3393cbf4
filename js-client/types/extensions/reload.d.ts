// Types of bayeux-client/extensions/reload: the same class as the package's main entry exports.
export { ReloadExtension } from '../index.js';
export type { StorageLike } from '../index.js';
