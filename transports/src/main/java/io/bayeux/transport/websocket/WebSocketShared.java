package io.bayeux.transport.websocket;

import io.bayeux.server.BayeuxServerImpl;
import io.bayeux.transport.ServerSettings;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;

import java.util.concurrent.Executor;

/**
 * What every WebSocket connection of one server shares, made once per server and immutable:
 * an idle connection keeps a reference to it instead of its own copy of each setting (and of
 * the frame decoder's configuration).
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

    public WebSocketShared(BayeuxServerImpl bayeux, ServerSettings config, Executor executor) {
        this.bayeux = bayeux;
        this.executor = executor;
        this.handshakePerConnection = config.handshakePerConnection();
        this.maxMessageSize = config.maxMessageSize();
        this.stallNanos = config.stallTime().toNanos();
        this.decoderConfig = WebSocketDecoderConfig.newBuilder()
                .maxFramePayloadLength(config.maxMessageSize())
                .allowExtensions(config.websocketCompression())
                .withUTF8Validator(true)
                .closeOnProtocolViolation(true)
                .build();
    }
}
