// Types of bayeux-client/extensions/recovery: the same class as the package's main entry exports.
export { RecoveryExtension } from '../index.js';
export type { Position, GapReason, RecoveryOptions } from '../index.js';
