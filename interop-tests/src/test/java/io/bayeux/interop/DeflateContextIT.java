package io.bayeux.interop;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Node clients against the demo server with a permessage-deflate context per connection
 * ({@code --websocket-compression-context}): this project's JavaScript client and CometD's, both
 * on {@code ws}, and CometD's in Chromium take a stream of small messages compressed with their
 * connection's context.
 * Runs {@code src/test/node/deflate-context.mjs} with the endpoint in {@code BAYEUX_CONTEXT_URL}.
 *
 * <p>Needs Node; {@code -Dinterop.node.skip=true} skips it (see {@link NodeScripts}).
 */
class DeflateContextIT {
    private InteropServer server;

    @BeforeEach
    void start() {
        server = InteropServer.withCompressionContext();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void nodeClientsInflateAStreamCompressedWithTheirConnectionsContext() throws Exception {
        long before = server.server().websocketCompressions();
        NodeScripts.nodeTest(List.of("deflate-context.mjs"), Map.of("BAYEUX_CONTEXT_URL", server.uri().toString()));
        // 30 deliveries to each of the three clients, whatever their size: with a context, every message is compressed.
        assertTrue(server.server().websocketCompressions() - before >= 90, "compressed: " + (server.server().websocketCompressions() - before));
    }
}
