package io.bayeux.transport.internal.websocket;

import io.bayeux.server.internal.BayeuxServerImpl;
import io.bayeux.transport.ServerSettings;
import io.bayeux.transport.internal.LoopOutbox;
import io.bayeux.transport.internal.http.BrowserCookie;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;

import java.util.Set;
import java.util.concurrent.Executor;

/**
 * What every WebSocket connection of one server shares, made once per server and immutable:
 * an idle connection keeps a reference to it instead of its own copy of each setting (and of
 * the frame decoder's configuration). Its collaborators are thread-safe.
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

    public WebSocketShared(BayeuxServerImpl bayeux, ServerSettings settings, Executor executor, BrowserCookie browserCookie,
                           LoopOutbox.Registry outboxes) {
        this.bayeux = bayeux;
        this.executor = executor;
        this.handshakePerConnection = settings.handshakePerConnection();
        this.maxMessageSize = settings.maxMessageSize();
        this.stallNanos = settings.stallTime().toNanos();
        this.decoderConfig = WebSocketDecoderConfig.newBuilder()
                .maxFramePayloadLength(settings.maxMessageSize())
                .allowExtensions(settings.websocketCompression())
                .withUTF8Validator(true)
                .closeOnProtocolViolation(true)
                .build();
        this.path = settings.path();
        this.allowedOrigins = settings.allowedOrigins();
        this.browserCookie = browserCookie;
        this.outboxes = outboxes;
    }
}
