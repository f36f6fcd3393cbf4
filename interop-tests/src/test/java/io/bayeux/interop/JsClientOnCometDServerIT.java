package io.bayeux.interop;

import io.bayeux.client.CometDServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

/**
 * This project's JavaScript client, in Node, against CometD 8's own server (on Jetty 12, with an
 * echo service on {@code /service/echo}) over WebSocket and long-polling: pub/sub, wildcards,
 * {@code remoteCall}, a batch, 100 messages in order, disconnect. CometD binds a long-polling
 * session to its {@code BAYEUX_BROWSER} cookie, so this passes only with the client's cookie jar.
 * Runs {@code src/test/node/js-client-on-cometd.mjs} with the endpoint in {@code COMETD_URL}.
 *
 * <p>Needs Node; {@code -Dinterop.node.skip=true} skips it (see {@link NodeScripts}).
 */
class JsClientOnCometDServerIT {
    private CometDServer server;

    @BeforeEach
    void start() throws Exception {
        server = new CometDServer(2_000).start();
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    @Test
    void theJavaScriptClientWorksWithCometDsServerOverWebSocketAndLongPolling() throws Exception {
        NodeScripts.nodeTest(List.of("js-client-on-cometd.mjs"), Map.of("COMETD_URL", server.uri().toString()));
    }
}
