// Type-checked by `npm test` (tsc --noEmit): every part of the public API, used as an application
// would, through the package's own exports, the subpath ones included. Nothing here runs.
import {
  AckExtension,
  BAYEUX_VERSION,
  BayeuxClient,
  CallbackPollingTransport,
  DEFAULTS,
  LongPollingTransport,
  RecoveryExtension,
  REFRESHABLE,
  TOKEN_CHANNEL,
  TokenExtension,
  ReloadExtension,
  RequestTransport,
  TimestampExtension,
  TimesyncExtension,
  WebSocketTransport,
  isValidChannel,
  matchingPatterns,
  promises,
} from 'bayeux-client';
import type {
  Advice,
  Configuration,
  Extension,
  Failure,
  GapReason,
  Handle,
  LogLevel,
  Message,
  MessageCallback,
  Position,
  PromiseClient,
  RecoveryOptions,
  TokenOptions,
  Reply,
  ReplyCallback,
  Status,
  StorageLike,
  Timers,
  Transport,
  TransportHost,
  WebSocketLike,
} from 'bayeux-client';
import { AckExtension as AckFromPath } from 'bayeux-client/extensions/ack';
import { TokenExtension as TokenFromPath } from 'bayeux-client/extensions/token';
import { RecoveryExtension as RecoveryFromPath, type Position as PositionFromPath } from 'bayeux-client/extensions/recovery';
import { ReloadExtension as ReloadFromPath, type StorageLike as StorageFromPath } from 'bayeux-client/extensions/reload';
import { TimestampExtension as TimestampFromPath } from 'bayeux-client/extensions/timestamp';
import { TimesyncExtension as TimesyncFromPath } from 'bayeux-client/extensions/timesync';
import { WebSocketTransport as WebSocketFromPath } from 'bayeux-client/transports/websocket';
import { LongPollingTransport as LongPollingFromPath } from 'bayeux-client/transports/long-polling';
import { CallbackPollingTransport as CallbackPollingFromPath } from 'bayeux-client/transports/callback-polling';
import { RequestTransport as RequestFromPath, type TransportHost as HostFromPath } from 'bayeux-client/transports/request-transport';

// --- configuration
const level: LogLevel = 'debug';
const timers: Timers = { setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (t) => clearTimeout(t as number) };
const advice: Advice = { reconnect: 'retry', interval: 0, timeout: 20000, maxInterval: 10000, 'multiple-clients': false };
const config: Configuration = {
  url: 'http://127.0.0.1:8080/cometd',
  logLevel: level,
  logger: console,
  backoffIncrement: 1000,
  maxBackoff: 60000,
  maxNetworkDelay: 10000,
  connectTimeout: 0,
  requestHeaders: { 'X-Test': '1' },
  appendMessageTypeToURL: true,
  maxConnections: 2,
  maxOutboxSize: 1000,
  transports: ['websocket', 'long-polling', 'callback-polling'],
  maxURILength: 2000,
  advice,
  fetch: (url, init) => fetch(url, init as RequestInit).then((r) => ({ ok: r.ok, status: r.status, json: () => r.json() })),
  jsonpLoader: async (url: string, callbackName: string, signal: AbortSignal) => [] as Message[],
  timers,
};
const backoff: number = DEFAULTS.backoffIncrement;
const version: string = BAYEUX_VERSION;

// --- the client
const client = new BayeuxClient(config);
const other = new BayeuxClient('http://127.0.0.1:8080/cometd');
other.configure({ maxBackoff: 5000 }).configure('http://127.0.0.1:8080/cometd');
const resolved: Configuration = client.getConfiguration();
const url: string | undefined = client.getURL();
client.init(config, { ext: { auth: 'token' } });

const status: Status = client.getStatus();
const disconnected: boolean = client.isDisconnected();
const clientId: string | null = client.getClientId();
const transportName: string | null = client.getTransport();
const currentAdvice: Advice = client.getAdvice();
const period: number = client.getBackoffPeriod();
const statusListener = (s: Status, transport: string | null) => console.log(s, transport);
client.addStatusListener(statusListener);
const removedStatus: boolean = client.removeStatusListener(statusListener);

// --- transports
const websocket = new WebSocketTransport();
const longPolling = new LongPollingTransport();
const callbackPolling = new CallbackPollingTransport();
const registered: boolean = client.registerTransport('websocket', websocket, 0);
client.registerTransport('long-polling', longPolling);
client.registerTransport('callback-polling', callbackPolling);
const unregistered: Transport | null = client.unregisterTransport('callback-polling');
const types: string[] = client.getTransportTypes();
const found: Transport | null = client.findTransport('websocket');
const wsName: string = websocket.name;
websocket.reset();

class CustomTransport extends RequestTransport {
  constructor() {
    super('custom');
  }
  async request(url: string, messages: Message[], signal: AbortSignal): Promise<Message[]> {
    const host: TransportHost = this.host;
    host.log.debug('sending', messages.length, 'to', this.url(messages));
    host.receive([]);
    const failure: Failure = { reason: 'test', httpCode: 500, transport: this.name, fallback: false };
    host.failure(messages, failure);
    return [];
  }
}
client.registerTransport('custom', new CustomTransport());

const socketLike: WebSocketLike = {
  onopen: null, onmessage: null, onclose: null, onerror: null,
  send(data: string) {}, close(code?: number, reason?: string) {},
};
const plainTransport: Transport = {
  accept: (version, crossDomain, url) => true,
  send: (messages, metaConnect) => {},
  abort: () => {},
};

// --- extensions
const ack = new AckExtension({ enabled: true });
ack.setEnabled(false);
const acked: boolean = ack.serverSupportsAcks;
const batch: number = ack.batch;
const timesync = new TimesyncExtension({ maxSamples: 5, now: Date.now });
const lag: number = timesync.getNetworkLag();
const offset: number = timesync.getTimeOffset();
const offsets: number[] = timesync.getTimeOffsetSamples();
const lags: number[] = timesync.getNetworkLagSamples();
const serverTime: number = timesync.getServerTime();
timesync.setTimeout(() => {}, new Date());
timesync.setTimeout(() => {}, Date.now() + 1000);
const timestamp = new TimestampExtension({ now: () => 0 });
const storage: StorageLike = { getItem: (k) => null, setItem: (k, v) => {}, removeItem: (k) => {} };
const reload = new ReloadExtension({ storage, name: 'app', maxAge: 60000, autoSave: false, now: Date.now });
const saved: boolean = reload.save();
const recoveryOptions: RecoveryOptions = {
  onGap: (channel: string, reason: GapReason) => console.log(channel, reason === 'trimmed'),
  onRecovered: (channel: string, replayed: number) => console.log(channel, replayed),
  enabled: true,
};
const recovery = new RecoveryExtension(recoveryOptions);
recovery.setEnabled(false);
const recoveryOn: boolean = recovery.enabled;
const positions: Record<string, Position> = recovery.positions();
const lastOffset: number | undefined = positions['/chat/room']?.offset;
const lastEpoch: string | undefined = positions['/chat/room']?.epoch;
const tokenOptions: TokenOptions = {
  token: 'eyJ...',
  refresh: async () => 'eyJ...new',
  onError: (reason: unknown) => console.log(reason),
};
const token = new TokenExtension(tokenOptions);
token.setToken('eyJ...other');
const currentToken: string = token.token;
const tokenChannel: '/service/token' = TOKEN_CHANNEL;
const refreshable: readonly string[] = REFRESHABLE;
const sameToken: TokenExtension = new TokenFromPath({ token: 't', refresh: () => 't2' });
const custom: Extension = {
  registered(name: string, c: BayeuxClient) {},
  unregistered() {},
  incoming: (message: Message) => message,
  outgoing: (message: Message) => (message.channel === '/drop' ? null : undefined),
};
client.registerExtension('ack', ack);
client.registerExtension('timesync', timesync);
client.registerExtension('timestamp', timestamp);
client.registerExtension('reload', reload);
client.registerExtension('recovery', recovery);
client.registerExtension('token', token);
client.registerExtension('custom', custom);
const gotExtension: Extension | null = client.getExtension('ack');
const unregisteredExtension: boolean = client.unregisterExtension('custom');
const reloaded: boolean | undefined = client.reload?.();

// The subpath exports give the very same classes.
const sameAck: AckExtension = new AckFromPath();
const sameRecovery: RecoveryExtension = new RecoveryFromPath({ onGap: () => {} });
const samePosition: Position = { offset: 1, epoch: 'e' } as PositionFromPath;
const sameReload: ReloadExtension = new ReloadFromPath({ storage: storage as StorageFromPath });
const sameTimestamp: TimestampExtension = new TimestampFromPath();
const sameTimesync: TimesyncExtension = new TimesyncFromPath();
const sameWebSocket: WebSocketTransport = new WebSocketFromPath();
const sameLongPolling: LongPollingTransport = new LongPollingFromPath();
const sameCallbackPolling: CallbackPollingTransport = new CallbackPollingFromPath();
abstract class FromPath extends RequestFromPath {
  hostOf(): HostFromPath {
    return this.host;
  }
}

// --- the session
const onReply: ReplyCallback = (reply: Reply) => {
  const ok: boolean = reply.successful;
  const why: string | undefined = reply.failure?.reason ?? reply.error;
};
client.handshake(onReply);
client.handshake({ ext: { token: 'x' } }, onReply);
const onMessage: MessageCallback = (message: Message) => console.log(message.channel, message.data);
const handle: Handle = client.subscribe('/chat/room', onMessage, onReply);
client.subscribe('/chat/*', onMessage, { ext: { since: 0 } }, onReply);
const handleId: number = handle.id;
const handleChannel: string = handle.channel;
const isListener: boolean = handle.listener;
client.unsubscribe(handle, onReply);
client.unsubscribe(handle, { ext: {} }, onReply);
const again: Handle = client.resubscribe(handle, { ext: {} }, onReply);
client.clearSubscriptions();
const listener: Handle = client.addListener('/meta/connect', onMessage);
const removed: boolean = client.removeListener(listener);
client.clearListeners();
client.publish('/chat/room', { text: 'hi' }, onReply);
client.publish('/chat/room', 'hi', { ext: {} }, onReply);
client.remoteCall('echo', { n: 1 }, onReply);
client.remoteCall('echo', { n: 1 }, 5000, onReply);
client.startBatch();
client.endBatch();
const batched: number = client.batch(function (this: BayeuxClient) {
  this.publish('/a', 1);
  return 1;
});
client.receive({ channel: '/chat/room', data: 'local' });
client.receive([{ channel: '/chat/room', data: 'local' }]);
client.disconnect(onReply);
client.abort();

// --- helpers
const valid: boolean = isValidChannel('/chat/room');
const patterns: string[] = matchingPatterns('/chat/room');

// --- promises
async function usePromises(): Promise<void> {
  const p: PromiseClient = promises(client);
  const same: BayeuxClient = p.client;
  const shook: Reply = await p.handshake({ ext: {} });
  const sub: Handle = await p.subscribe('/chat/room', onMessage, { ext: {} });
  const unsub: Reply = await p.unsubscribe(sub);
  const pub: Reply = await p.publish('/chat/room', { text: 'hi' });
  const result: unknown = await p.remoteCall('echo', 1, 1000);
  const bye: Reply = await p.disconnect();
}
