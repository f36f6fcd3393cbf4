// Type declarations for bayeux-client (hand-written; the sources are plain ES modules).

/** A Bayeux message as it travels: the fields of the protocol, and whatever else a peer adds. */
export interface Message {
  channel: string;
  id?: string;
  clientId?: string;
  data?: unknown;
  successful?: boolean;
  error?: string;
  subscription?: string | string[];
  advice?: Advice;
  ext?: Record<string, unknown>;
  connectionType?: string;
  supportedConnectionTypes?: string[];
  version?: string;
  minimumVersion?: string;
  timestamp?: string;
  [field: string]: unknown;
}

export interface Advice {
  reconnect?: 'retry' | 'handshake' | 'none';
  interval?: number;
  timeout?: number;
  maxInterval?: number;
  'multiple-clients'?: boolean;
  [field: string]: unknown;
}

/** Why a message got no reply from the server (on replies built by the client). */
export interface Failure {
  reason: string;
  exception?: unknown;
  httpCode?: number;
  code?: number;
  transport?: string | null;
  /** The transport never opened: the client moves to the next one. */
  fallback?: boolean;
  /** The message that failed. */
  message?: Message;
  [field: string]: unknown;
}

/** A reply: from the server, or built by the client when none came (then with `failure`). */
export interface Reply extends Message {
  successful: boolean;
  failure?: Failure;
}

export type Status = 'disconnected' | 'handshaking' | 'connecting' | 'connected' | 'disconnecting';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'off';

export type MessageCallback = (message: Message) => void;
export type ReplyCallback = (reply: Reply) => void;

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
}

export interface WebSocketLike {
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason?: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

export type WebSocketConstructor = new (url: string, ...rest: any[]) => WebSocketLike;
export type FetchFunction = (url: string, init: { method: string; headers: Record<string, string>; body: string; credentials: string; signal: AbortSignal }) => Promise<{ ok: boolean; status: number; json(): Promise<unknown> }>;
/** Loads a JSONP script; outside a browser it gets the client's cookie jar, to send and keep cookies as a script element would. */
export type JsonpLoader = (url: string, callbackName: string, signal: AbortSignal, cookieJar: CookieJar | null) => Promise<Message[]>;

/** The options of `configure`, with their defaults in `DEFAULTS`. */
export interface Configuration {
  /** The Bayeux endpoint, e.g. `http://localhost:8080/cometd` (http(s) or ws(s)). */
  url?: string;
  /** Default 'info'. */
  logLevel?: LogLevel;
  /** Where log lines go; default `console`. */
  logger?: Pick<Console, 'debug' | 'info' | 'warn' | 'error'>;
  /** Each failed attempt waits this much longer than the previous one; default 1000 ms. */
  backoffIncrement?: number;
  /** The longest wait between attempts; default 60000 ms. */
  maxBackoff?: number;
  /** How long a request may take beyond the server's hold time; default 10000 ms. */
  maxNetworkDelay?: number;
  /** How long a WebSocket may take to open; default 0 = maxNetworkDelay. */
  connectTimeout?: number;
  /** Headers for every HTTP request (and the WebSocket upgrade with the `ws` package). */
  requestHeaders?: Record<string, string>;
  /** Long-polling: `/connect`, `/handshake`... appended to the URL of single meta messages; default true. */
  appendMessageTypeToURL?: boolean;
  /** Long-polling: requests in flight at once, the held connect included; default 2. */
  maxConnections?: number;
  /** Messages kept while the link is down; the oldest fails past it. Default 1000. */
  maxOutboxSize?: number;
  /** The transports that may be used; default ['websocket', 'long-polling']. Add 'callback-polling' for JSONP. */
  transports?: string[];
  /** Callback-polling: the longest URL before a batch is split; default 2000. */
  maxURILength?: number;
  /** The advice assumed until the server gives its own. */
  advice?: Advice;
  /** A WebSocket constructor; default the global one, else the `ws` package. */
  WebSocket?: WebSocketConstructor;
  /** A fetch function; default the global one. */
  fetch?: FetchFunction;
  /**
   * Where the cookies servers set are kept and sent from: by default a CookieJar per client
   * where no browser keeps cookies (Node), none in a browser; null sends no cookies.
   */
  cookieJar?: CookieJar | null;
  /** Callback-polling: how a JSONP script is loaded; default a script element. */
  jsonpLoader?: JsonpLoader;
  /** The timers the client uses; default the global ones. */
  timers?: Timers;
}

export const DEFAULTS: Readonly<Required<Omit<Configuration, 'url' | 'logger' | 'WebSocket' | 'fetch' | 'jsonpLoader' | 'timers' | 'cookieJar'>>> & Configuration;
export const BAYEUX_VERSION: string;

/** What `subscribe` and `addListener` return. */
export interface Handle {
  readonly id: number;
  readonly channel: string;
  readonly callback: MessageCallback;
  /** true for a local listener, false for a subscription. */
  readonly listener: boolean;
  readonly subscribeProps?: Record<string, unknown>;
}

/** What a transport gets from its client in `registered`. */
export interface TransportHost {
  options(): Configuration & typeof DEFAULTS;
  advice(): Advice;
  log: Pick<Console, 'debug' | 'info' | 'warn' | 'error'>;
  timers: Timers;
  /** The client's cookie jar, or null where the browser keeps cookies. */
  cookies(): CookieJar | null;
  /** Every message that arrives. */
  receive(messages: Message[]): void;
  /** Messages that were not delivered or got no reply. */
  failure(messages: Message[], failure: Failure): void;
}

export interface Transport {
  registered?(name: string, host: TransportHost): void;
  unregistered?(): void;
  accept(version: string, crossDomain: boolean, url: string): boolean;
  /** Sends a batch; replies go to `host.receive`, failures to `host.failure`. */
  send(messages: Message[], metaConnect: boolean): void;
  /** Stops every request or connection without reporting anything. */
  abort(): void;
  reset?(): void;
}

export interface Extension {
  registered?(name: string, client: BayeuxClient): void;
  unregistered?(): void;
  /** Returns the message (possibly changed), undefined to keep it, or null to drop it. */
  incoming?(message: Message): Message | null | undefined | void;
  outgoing?(message: Message): Message | null | undefined | void;
}

export class BayeuxClient {
  constructor(config?: Configuration | string);

  configure(config: Configuration | string): this;
  getConfiguration(): Configuration & typeof DEFAULTS;
  getURL(): string | undefined;
  init(config: Configuration | string, handshakeProps?: Record<string, unknown>): this;

  getStatus(): Status;
  isDisconnected(): boolean;
  getClientId(): string | null;
  /** The name of the transport in use, or null. */
  getTransport(): string | null;
  getAdvice(): Advice;
  getBackoffPeriod(): number;
  addStatusListener(listener: (status: Status, transport: string | null) => void): void;
  removeStatusListener(listener: (status: Status, transport: string | null) => void): boolean;

  registerTransport(name: string, transport: Transport, index?: number): boolean;
  unregisterTransport(name: string): Transport | null;
  getTransportTypes(): string[];
  findTransport(name: string): Transport | null;
  registerExtension(name: string, extension: Extension): boolean;
  unregisterExtension(name: string): boolean;
  getExtension(name: string): Extension | null;

  handshake(callback?: ReplyCallback): void;
  handshake(props: Record<string, unknown>, callback?: ReplyCallback): void;
  disconnect(callback?: ReplyCallback): void;
  /** Stops at once without telling the server (as a page that goes away). */
  abort(): void;
  /** For extensions: handles messages as if they came from the server. */
  receive(message: Message | Message[]): void;

  subscribe(channel: string, callback: MessageCallback, subscribeCallback?: ReplyCallback): Handle;
  subscribe(channel: string, callback: MessageCallback, props: Record<string, unknown>, subscribeCallback?: ReplyCallback): Handle;
  unsubscribe(handle: Handle, callback?: ReplyCallback): void;
  unsubscribe(handle: Handle, props: Record<string, unknown>, callback?: ReplyCallback): void;
  resubscribe(handle: Handle, props?: Record<string, unknown>, subscribeCallback?: ReplyCallback): Handle;
  clearSubscriptions(): void;
  addListener(channel: string, callback: MessageCallback): Handle;
  removeListener(handle: Handle): boolean;
  clearListeners(): void;

  publish(channel: string, data: unknown, callback?: ReplyCallback): void;
  publish(channel: string, data: unknown, props: Record<string, unknown>, callback?: ReplyCallback): void;
  remoteCall(target: string, data: unknown, callback: ReplyCallback): void;
  remoteCall(target: string, data: unknown, timeout: number | undefined, callback: ReplyCallback): void;

  startBatch(): void;
  endBatch(): void;
  batch<T>(fn: (this: BayeuxClient) => T): T;

  /** Added by ReloadExtension: saves the session for the next page. */
  reload?(): boolean;
}

export class WebSocketTransport implements Transport {
  readonly name: string;
  registered(name: string, host: TransportHost): void;
  accept(): boolean;
  send(messages: Message[], metaConnect: boolean): void;
  abort(): void;
  reset(): void;
}

/** The base of the HTTP transports: subclasses implement `request`. */
export abstract class RequestTransport implements Transport {
  constructor(name: string);
  readonly name: string;
  readonly host: TransportHost;
  registered(name: string, host: TransportHost): void;
  accept(): boolean;
  send(messages: Message[], metaConnect: boolean): void;
  abort(): void;
  reset(): void;
  url(messages: Message[]): string;
  abstract request(url: string, messages: Message[], signal: AbortSignal): Promise<Message[]>;
}

export class LongPollingTransport extends RequestTransport {
  constructor();
  request(url: string, messages: Message[], signal: AbortSignal): Promise<Message[]>;
}

export class CallbackPollingTransport extends RequestTransport {
  constructor();
  request(url: string, messages: Message[], signal: AbortSignal): Promise<Message[]>;
}

export class AckExtension implements Extension {
  constructor(options?: { enabled?: boolean });
  readonly serverSupportsAcks: boolean;
  readonly batch: number;
  setEnabled(enabled: boolean): void;
  incoming(message: Message): Message;
  outgoing(message: Message): Message;
}

export class TimesyncExtension implements Extension {
  constructor(options?: { maxSamples?: number; now?: () => number });
  getNetworkLag(): number;
  getTimeOffset(): number;
  getTimeOffsetSamples(): number[];
  getNetworkLagSamples(): number[];
  getServerTime(): number;
  setTimeout(callback: () => void, atServerTime: number | Date): unknown;
  incoming(message: Message): Message;
  outgoing(message: Message): Message;
}

export class TimestampExtension implements Extension {
  constructor(options?: { now?: () => number });
  outgoing(message: Message): Message;
}

export interface StorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export class ReloadExtension implements Extension {
  constructor(options?: { storage?: StorageLike; name?: string; maxAge?: number; autoSave?: boolean; now?: () => number });
  registered(name: string, client: BayeuxClient): void;
  unregistered(): void;
  /** Stores the session for the next page; false when there is none. */
  save(): boolean;
  incoming(message: Message): Message;
  outgoing(message: Message): Message | null;
}

/** Where a message stands in its channel's history (docs/history.md): `ext.position` on the wire. */
export interface Position {
  /** Grows with each message of the channel; compared only within one epoch. */
  offset: number;
  /** Names the history the offset belongs to. */
  epoch: string;
}

/** Why a subscription could not be recovered: the server's `reason`, or `no_history`. */
export type GapReason = 'epoch' | 'trimmed' | 'expired' | 'ahead' | 'no_history' | (string & {});

export interface RecoveryOptions {
  /** The channel's missed messages cannot all be had: nothing was replayed; reload its state. */
  onGap?: (channel: string, reason: GapReason) => void;
  /** The server replays the `replayed` missed messages (before or after the subscribe reply). */
  onRecovered?: (channel: string, replayed: number) => void;
  /** Default true. */
  enabled?: boolean;
}

/** History and recovery: asks for what was missed when subscribing again, drops duplicates, reports gaps. */
export class RecoveryExtension implements Extension {
  constructor(options?: RecoveryOptions);
  readonly enabled: boolean;
  setEnabled(enabled: boolean): void;
  /** A copy of the remembered positions, by channel. */
  positions(): Record<string, Position>;
  registered(name: string, client: BayeuxClient): void;
  incoming(message: Message): Message | null;
  outgoing(message: Message): Message;
}

/** The service channel of the token refresh flow. */
export const TOKEN_CHANNEL: '/service/token';

/** The reasons of a handshake refusal that make the TokenExtension refresh its token and handshake again. */
export const REFRESHABLE: readonly ['token_expired', 'token_missing'];

export interface TokenOptions {
  /** The token of the first handshake, sent as `ext.token`. */
  token: string;
  /** Called when the server asks for a new token, or refuses a handshake for an expired or missing one; resolves to it. */
  refresh: () => Promise<string> | string;
  /** Told when refresh fails or gives nothing (an Error), when the server refuses the new token, or a handshake with it (its error string). */
  onError?: (reason: unknown) => void;
}

/**
 * Token authentication: the token in the handshake's ext, refreshed on the server's request without
 * reconnecting; a handshake refused for an expired or missing token is tried once more with a new one.
 */
export class TokenExtension implements Extension {
  constructor(options: TokenOptions);
  /** The token the next handshake sends. */
  readonly token: string;
  setToken(token: string): void;
  registered(name: string, client: BayeuxClient): void;
  unregistered(): void;
  incoming(message: Message): Message | null;
  outgoing(message: Message): Message;
}

export function isValidChannel(name: unknown): boolean;
export function matchingPatterns(channel: string): string[];

export interface PromiseClient {
  readonly client: BayeuxClient;
  handshake(props?: Record<string, unknown>): Promise<Reply>;
  subscribe(channel: string, callback: MessageCallback, props?: Record<string, unknown>): Promise<Handle>;
  unsubscribe(handle: Handle, props?: Record<string, unknown>): Promise<Reply>;
  publish(channel: string, data: unknown, props?: Record<string, unknown>): Promise<Reply>;
  /** Resolves with the result's data. */
  remoteCall(target: string, data: unknown, timeout?: number): Promise<unknown>;
  disconnect(): Promise<Reply>;
}

/** Promise-returning versions of the calls that have a reply; failures reject with an Error whose `reply` is the reply. */
export function promises(client: BayeuxClient): PromiseClient;

/** A cookie kept by a CookieJar. */
export interface StoredCookie {
  name: string;
  value: string;
  domain: string;
  hostOnly: boolean;
  path: string;
  secure: boolean;
  httpOnly: boolean;
  /** When it expires, in ms since the epoch; Infinity for a session cookie. */
  expires: number;
  created: number;
}

/** RFC 6265 cookie storage for environments without a browser cookie store (Node). */
export class CookieJar {
  constructor(options?: { maxCookies?: number; now?: () => number });
  /** Stores the cookies of Set-Cookie header values received from `url`. */
  store(url: string, setCookies: string | string[] | undefined | null): void;
  /** The Cookie header for a request to `url`; '' when none applies. */
  header(url: string): string;
  cookies(): StoredCookie[];
  clear(): void;
}
