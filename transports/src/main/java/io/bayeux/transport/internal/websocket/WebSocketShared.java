package io.bayeux.transport.internal.websocket;

import io.bayeux.server.internal.BayeuxServerImpl;
import io.bayeux.transport.ServerSettings;
import io.bayeux.transport.WebSocketCompression;
import io.bayeux.transport.internal.LoopOutbox;
import io.bayeux.transport.internal.http.BrowserCookie;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * What every WebSocket connection of one server shares, made once per server (its settings immutable):
 * an idle connection keeps a reference to it instead of its own copy of each setting (and of
 * the frame decoder's configuration), and the event loops' zlib state (and the lists of the
 * connections' own compression contexts). Its collaborators are thread-safe.
 */
public final class WebSocketShared {
    final BayeuxServerImpl bayeux;
    /** Where what the connections read is handled (in order per connection). */
    final Executor executor;
    final boolean handshakePerConnection;
    final int maxMessageSize;
    /** How long an unwritable connection may take no byte before it counts as stalled. */
    final long stallNanos;
    final WebSocketDecoderConfig decoderConfig;
    /** The endpoint path, for each connection's {@code BayeuxContext}. */
    final String path;
    /** The origins an upgrade may come from; {@code *} for any. */
    final Set<String> allowedOrigins;
    /** The cookie that binds sessions to their browser, as the server names and writes it. */
    final BrowserCookie browserCookie;
    /** The event loops' outboxes: replies written from the executor, one round per loop. */
    final LoopOutbox.Registry outboxes;
    /** How messages are compressed for the connections that negotiated permessage-deflate. */
    final WebSocketCompression compression;
    /** The messages compressed so far, a broadcast once for all its subscribers. */
    final LongAdder compressions = new LongAdder();
    /** Each event loop's deflater and inflater, made when a connection of the loop negotiates permessage-deflate. */
    private final Map<EventLoop, Deflation> deflations = new ConcurrentHashMap<>();
    /** Each loop's idle sweep, started with its first WebSocket connection. */
    private final Map<EventLoop, IdleSweep> sweeps = new ConcurrentHashMap<>();
    private final Duration idleTimeout;
    /** Each event loop's connection contexts, made when a connection of the loop negotiates context takeover. */
    private final Map<EventLoop, LoopContexts> contexts = new ConcurrentHashMap<>();
    /** The connection contexts holding a deflater now. */
    private final AtomicInteger heldContexts = new AtomicInteger();

    /** The zlib state of one event loop, used by its connections one message at a time; loop-confined. */
    record Deflation(MessageDeflater deflater, MessageInflater inflater) {
    }

    public WebSocketShared(BayeuxServerImpl bayeux, ServerSettings settings, Executor executor, BrowserCookie browserCookie,
                           LoopOutbox.Registry outboxes) {
        this.bayeux = bayeux;
        this.executor = executor;
        this.handshakePerConnection = settings.handshakePerConnection();
        this.maxMessageSize = settings.maxMessageSize();
        this.stallNanos = settings.stallTime().toNanos();
        this.idleTimeout = settings.idleTimeout();
        this.decoderConfig = WebSocketDecoderConfig.newBuilder()
                .maxFramePayloadLength(settings.maxMessageSize())
                .allowExtensions(settings.websocketCompression().enabled())
                .withUTF8Validator(true)
                // The frame handler closes with the violation's code (there is no frame
                // encoder after the handshake for the decoder's own close frame).
                .closeOnProtocolViolation(false)
                .build();
        this.path = settings.path();
        this.allowedOrigins = settings.allowedOrigins();
        this.browserCookie = browserCookie;
        this.outboxes = outboxes;
        this.compression = settings.websocketCompression();
    }

    /** The deflater and inflater of {@code loop}'s connections; any thread. */
    Deflation deflationOf(EventLoop loop) {
        return deflations.computeIfAbsent(loop, each -> new Deflation(new MessageDeflater(compression, compressions), new MessageInflater()));
    }

    /** The idle sweep of {@code loop}, started with the first connection that asks for it. */
    IdleSweep sweepOf(EventLoop loop) {
        return sweeps.computeIfAbsent(loop, each -> IdleSweep.start(each, idleTimeout));
    }

    /** A new compression context for a connection of {@code loop} that negotiated context takeover; any thread. */
    ContextDeflater newContext(EventLoop loop, int windowBits) {
        return new ContextDeflater(contexts.computeIfAbsent(loop,
                each -> new LoopContexts(each, compression, compressions, heldContexts, System::nanoTime)), windowBits);
    }

    /** The connections holding a compression context (the last messages they sent, with where) now. */
    public int heldContexts() {
        return heldContexts.get();
    }

    /** The messages compressed so far by this server's connections: a broadcast counts once. */
    public long compressions() {
        return compressions.sum();
    }
}
