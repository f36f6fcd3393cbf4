package io.bayeux.client.transport;

import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketClientExtensionHandler;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtensionFilter;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtensionFilterProvider;
import io.netty.handler.codec.http.websocketx.extensions.compression.PerMessageDeflateClientExtensionHandshaker;

/**
 * The WebSocket transport's permessage-deflate offer (RFC 7692), made by Netty's extension
 * handler: {@code permessage-deflate} without parameters, accepting whatever no-context-takeover
 * the server answers with (this project's server always asks for both, so neither side keeps
 * zlib state between messages; CometD's keeps context by default, which Netty's decoder
 * follows). Frames under {@value #MIN_BYTES} bytes go uncompressed; what a message inflates to
 * is bounded by the largest message allowed. Stateless.
 */
final class Compression {
    /** Frames smaller than this are sent uncompressed: deflate's overhead would eat the gain. */
    static final int MIN_BYTES = 128;
    private static final int LEVEL = 6;
    private static final int WINDOW_BITS = 15;

    private Compression() {
    }

    /** A new extension handler (one per connection: Netty's holds the negotiated state) bounding inflation at {@code maxMessageSize}. */
    static WebSocketClientExtensionHandler offer(int maxMessageSize) {
        WebSocketExtensionFilterProvider filters = new WebSocketExtensionFilterProvider() {
            @Override
            public WebSocketExtensionFilter encoderFilter() {
                return SMALL_FRAMES;
            }

            @Override
            public WebSocketExtensionFilter decoderFilter() {
                return WebSocketExtensionFilter.NEVER_SKIP;
            }
        };
        // No client_max_window_bits offered (Netty would need JZlib to honour a smaller one);
        // client_no_context_takeover accepted; server_no_context_takeover not required.
        return new WebSocketClientExtensionHandler(new PerMessageDeflateClientExtensionHandshaker(
                LEVEL, false, WINDOW_BITS, true, false, filters, maxMessageSize));
    }

    private static final WebSocketExtensionFilter SMALL_FRAMES = frame -> frame.content().readableBytes() < MIN_BYTES;
}
