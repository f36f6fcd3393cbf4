package io.bayeux.oort;

import io.bayeux.client.BayeuxClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

import static io.bayeux.oort.OortTesting.SECRET;
import static io.bayeux.oort.OortTesting.awaitMesh;
import static io.bayeux.oort.OortTesting.client;
import static io.bayeux.oort.OortTesting.next;
import static io.bayeux.oort.OortTesting.node;
import static io.bayeux.oort.OortTesting.publish;
import static io.bayeux.oort.OortTesting.subscribe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A link's WebSocket carries the observed channels' messages uncompressed, whatever the server offers its clients. */
class LinkCompressionIT {
    /** Large enough for the server to compress it for a client that negotiated permessage-deflate, and compressible. */
    private static final Map<String, Object> LARGE = Map.of("text", "a chat line that says the same thing again, ".repeat(50));

    private final List<AutoCloseable> closing = new java.util.ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : closing.reversed()) {
            c.close();
        }
    }

    @Test
    void aLargeMessageCrossesALinkUncompressedAndWhole() throws Exception {
        OortTesting.Node a = keep(node(true, SECRET, java.time.Duration.ofSeconds(6), "/chat/**"));
        OortTesting.Node b = keep(node(true, SECRET, java.time.Duration.ofSeconds(6), "/chat/**"));
        b.oort().observeComet(a.url());
        awaitMesh(a, b);

        // Clients over long-polling: the only WebSocket connections to A are B's link.
        BayeuxClient onB = keep(client(b.url(), "long-polling"));
        BlockingQueue<Object> received = new LinkedBlockingQueue<>();
        assertTrue(subscribe(onB, "/chat/room", (channel, message) -> received.add(message.getData())).isSuccessful());
        BayeuxClient onA = keep(client(a.url(), "long-polling"));
        assertTrue(publish(onA, "/chat/room", LARGE).isSuccessful());

        assertEquals(LARGE, next(received));
        assertEquals(0, a.server().websocketCompressions(), "A compressed nothing for B's link");
    }

    private <T> T keep(T closeable) {
        if (closeable instanceof BayeuxClient client) {
            closing.add(client::disconnect);
        } else {
            closing.add((AutoCloseable) closeable);
        }
        return closeable;
    }
}
