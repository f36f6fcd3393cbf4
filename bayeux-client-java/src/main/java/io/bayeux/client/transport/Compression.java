package io.bayeux.client.transport;

import io.netty.handler.codec.http.websocketx.extensions.WebSocketClientExtensionHandler;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtensionFilter;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtensionFilterProvider;
import io.netty.handler.codec.http.websocketx.extensions.compression.PerMessageDeflateClientExtensionHandshaker;

/**
 * The WebSocket transport's permessage-deflate offer (RFC 7692), made by Netty's extension
 * handler: {@code permessage-deflate} without parameters, accepting whatever no-context-takeover
 * the server answers with (this project's server always asks for both; CometD's keeps context by
 * default, which Netty's decoder follows). What the server sends compressed is inflated, bounded
 * by the largest message allowed. What the client sends goes uncompressed (RFC 7692 lets a
 * sender compress none of its messages): without context takeover Netty's encoder makes a zlib
 * deflater per message, and at a couple of thousand clients per process that churn slowed the
 * clients' connect cycles until their sessions expired; a client's messages are mostly small
 * meta messages anyway. Stateless.
 */
final class Compression {
    private static final int LEVEL = 6;
    private static final int WINDOW_BITS = 15;

    private Compression() {
    }

    /** A new extension handler (one per connection: Netty's holds the negotiated state) bounding inflation at {@code maxMessageSize}. */
    static WebSocketClientExtensionHandler offer(int maxMessageSize) {
        WebSocketExtensionFilterProvider filters = new WebSocketExtensionFilterProvider() {
            @Override
            public WebSocketExtensionFilter encoderFilter() {
                return WebSocketExtensionFilter.ALWAYS_SKIP;
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
}
