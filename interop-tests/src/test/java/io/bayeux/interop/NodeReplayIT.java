package io.bayeux.interop;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Faye's Node client with a Replay extension written like jsforce's, against the demo with
 * history on ({@code /event/**} speak Salesforce's {@code replay} dialect): runs
 * {@code src/test/node/replay-dialect.mjs} with the endpoint in {@code BAYEUX_URL} and the history
 * size in {@code BAYEUX_HISTORY_SIZE}, and expects exit code 0.
 *
 * <p>Needs Node; {@code -Dinterop.node.skip=true} skips it (see {@link NodeScripts}).
 */
class NodeReplayIT {
    private InteropServer server;

    @BeforeEach
    void start() {
        server = InteropServer.withHistory(ReplayDialectIT.HISTORY_SIZE, Duration.ofMinutes(5));
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void fayeWithJsforcesReplayExtensionReplaysOverWebSocketAndLongPolling() throws Exception {
        NodeScripts.nodeTest(List.of("replay-dialect.mjs"), Map.of(
                "BAYEUX_URL", server.uri().toString(),
                "BAYEUX_HISTORY_SIZE", String.valueOf(ReplayDialectIT.HISTORY_SIZE)));
    }
}
