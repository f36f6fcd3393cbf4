package io.bayeux.client.transport;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketClientExtension;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketClientExtensionHandler;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketClientExtensionHandshaker;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtensionData;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtensionDecoder;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtensionEncoder;
import io.netty.handler.codec.http.websocketx.extensions.compression.PerMessageDeflateClientExtensionHandshaker;

import java.util.List;

/**
 * The WebSocket transport's permessage-deflate (RFC 7692): the offer, {@code permessage-deflate}
 * without parameters, and the server's answer are Netty's to make and check (whatever
 * no-context-takeover the server answers with is accepted: this project's server asks for both
 * unless it keeps a context per connection, CometD's keeps context by default); what the server sends compressed is inflated by
 * {@link InflateDecoder}, bounded by the largest message allowed. What the client sends goes
 * uncompressed (RFC 7692 lets a sender compress none of its messages; a client's messages are
 * mostly small meta messages). Stateless.
 */
final class Compression implements WebSocketClientExtensionHandshaker {
    private static final String SERVER_NO_CONTEXT = "server_no_context_takeover";
    private static final int LEVEL = 6;
    private static final int WINDOW_BITS = 15;
    /** Compresses nothing: every frame the client writes passes untouched. */
    private static final WebSocketExtensionEncoder PLAIN = new Plain();

    private final PerMessageDeflateClientExtensionHandshaker netty;
    private final int maxMessageSize;

    private Compression(int maxMessageSize) {
        // No client_max_window_bits offered; client_no_context_takeover accepted;
        // server_no_context_takeover not required. Netty's encoder and decoder are not used.
        this.netty = new PerMessageDeflateClientExtensionHandshaker(LEVEL, false, WINDOW_BITS, true, false);
        this.maxMessageSize = maxMessageSize;
    }

    /** A new extension handler (one per connection: it holds the negotiated state) bounding inflation at {@code maxMessageSize}. */
    static WebSocketClientExtensionHandler offer(int maxMessageSize) {
        return new WebSocketClientExtensionHandler(new Compression(maxMessageSize));
    }

    @Override
    public WebSocketExtensionData newRequestData() {
        return netty.newRequestData();
    }

    @Override
    public WebSocketClientExtension handshakeExtension(WebSocketExtensionData answer) {
        WebSocketClientExtension accepted = netty.handshakeExtension(answer);
        if (accepted == null) {
            return null;
        }
        boolean serverKeepsContext = !answer.parameters().containsKey(SERVER_NO_CONTEXT);
        return new WebSocketClientExtension() {
            @Override
            public int rsv() {
                return accepted.rsv();
            }

            @Override
            public WebSocketExtensionEncoder newExtensionEncoder() {
                return PLAIN;
            }

            @Override
            public WebSocketExtensionDecoder newExtensionDecoder() {
                return new InflateDecoder(serverKeepsContext, maxMessageSize);
            }
        };
    }

    /** The encoder of a client that compresses nothing. */
    @ChannelHandler.Sharable
    private static final class Plain extends WebSocketExtensionEncoder {
        @Override
        public boolean acceptOutboundMessage(Object msg) {
            return false;
        }

        @Override
        protected void encode(ChannelHandlerContext ctx, WebSocketFrame frame, List<Object> out) {
            throw new IllegalStateException("takes no frame");
        }
    }
}
