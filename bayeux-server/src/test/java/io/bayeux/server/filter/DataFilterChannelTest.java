package io.bayeux.server.filter;

import io.bayeux.server.BayeuxServerConfig;
import io.bayeux.server.internal.BayeuxServerImpl;
import io.bayeux.server.internal.ManualScheduler;
import io.bayeux.server.internal.TestClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Filters on a wildcard channel, end to end through the transport SPI. */
class DataFilterChannelTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private BayeuxServerImpl server;

    @BeforeEach
    void start() {
        server = new BayeuxServerImpl(scheduler.config().executor(Runnable::run).build()).start();
        DataFilter noSpam = (from, channel, data) -> {
            if (data instanceof Map<?, ?> map && "spam".equals(map.get("text"))) {
                throw new DataFilter.AbortException("spam");
            }
            return data;
        };
        server.createChannelIfAbsent("/chat/**", channel -> channel.addListener(
                new DataFilterMessageListener(noSpam, new NoMarkupFilter(), new MaskWordsFilter("darn"))));
    }

    @AfterEach
    void stop() {
        server.stop();
    }

    /** The deliveries on /chat/room a subscriber gets next: pushed, or in the reply to its held connect. */
    private static List<Map<String, Object>> receive(TestClient subscriber, boolean push,
                                                     CompletableFuture<List<Map<String, Object>>> held) {
        if (push) {
            return List.of(subscriber.nextPushed());
        }
        try {
            return TestClient.deliveries(held.get(5, TimeUnit.SECONDS), "/chat/room");
        } catch (Exception x) {
            throw new AssertionError("No connect reply within 5 s", x);
        }
    }

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void subscribersReceiveEscapedAndMaskedData(boolean push) {
        TestClient alice = new TestClient(server, push).connected();
        TestClient bob = new TestClient(server, push).connected();
        assertEquals(true, bob.subscribe("/chat/room").get("successful"));
        var held = push ? null : bob.connect();

        Map<String, Object> reply = alice.publish("/chat/room",
                Map.of("text", "<b>Darn</b> it", "tags", List.of("a&b", "darn"), "n", 7));
        assertEquals(true, reply.get("successful"));

        List<Map<String, Object>> delivered = receive(bob, push, held);
        assertEquals(1, delivered.size(), delivered.toString());
        assertEquals("/chat/room", delivered.get(0).get("channel"));
        assertEquals(Map.of("text", "&lt;b&gt;****&lt;/b&gt; it", "tags", List.of("a&amp;b", "****"), "n", 7),
                delivered.get(0).get("data"));
    }

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void anAbortingFilterDeletesTheMessageForEverybody(boolean push) {
        TestClient alice = new TestClient(server, push).connected();
        TestClient bob = new TestClient(server, push).connected();
        assertEquals(true, bob.subscribe("/chat/room").get("successful"));
        assertEquals(true, alice.subscribe("/chat/room").get("successful"));
        var held = push ? null : bob.connect();

        Map<String, Object> reply = alice.publish("/chat/room", Map.of("text", "spam"));
        assertEquals(false, reply.get("successful"));
        assertEquals("404::message_deleted", reply.get("error"));

        // Deliveries keep their order: the next one bob gets must be the message after the spam.
        assertEquals(true, alice.publish("/chat/room", Map.of("text", "ham")).get("successful"));
        List<Map<String, Object>> delivered = receive(bob, push, held);
        assertEquals(List.of(Map.of("text", "ham")), delivered.stream().map(m -> m.get("data")).toList());
        if (push) {
            assertTrue(alice.pushed.stream().noneMatch(m -> m.toString().contains("spam")), alice.pushed.toString());
        }
    }

    @Test
    void dataPublishedByTheServerIsFilteredWithoutTouchingTheCallersMap() {
        TestClient bob = new TestClient(server, true).connected();
        assertEquals(true, bob.subscribe("/chat/room").get("successful"));
        Map<String, Object> data = new HashMap<>(Map.of("text", "<i>darn</i>"));

        server.createChannelIfAbsent("/chat/room").getReference().publish(null, data);

        assertEquals(Map.of("text", "&lt;i&gt;****&lt;/i&gt;"), bob.nextPushed().get("data"));
        assertEquals(Map.of("text", "<i>darn</i>"), data);
    }

    @Test
    void channelsOutsideTheWildcardAreNotFiltered() {
        TestClient bob = new TestClient(server, true).connected();
        TestClient alice = new TestClient(server, true).connected();
        assertEquals(true, bob.subscribe("/news").get("successful"));

        assertEquals(true, alice.publish("/news", "<b>darn</b>").get("successful"));

        assertEquals("<b>darn</b>", bob.nextPushed().get("data"));
    }
}
