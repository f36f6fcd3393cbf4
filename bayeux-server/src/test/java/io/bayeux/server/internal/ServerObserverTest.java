package io.bayeux.server.internal;

import io.bayeux.server.QueueOverflow;
import io.bayeux.server.spi.ServerObserver;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What an installed {@link ServerObserver} hears, and that a server without one measures nothing. */
class ServerObserverTest extends ServerTestSupport {
    /** Records each event as a line. */
    private static final class Recorder implements ServerObserver {
        final List<String> events = new CopyOnWriteArrayList<>();
        final List<Long> oldest = new CopyOnWriteArrayList<>();
        final List<Long> flushed = new CopyOnWriteArrayList<>();

        @Override
        public void handshake(String transport, String error) {
            events.add("handshake " + transport + " " + error);
        }

        @Override
        public void sessionRemoved(String transport, DisconnectCause cause) {
            events.add("removed " + transport + " " + cause);
        }

        @Override
        public void published(String transport) {
            events.add("published " + transport);
        }

        @Override
        public void publishRefused(String error) {
            events.add("refused " + error);
        }

        @Override
        public void delivered(String transport, int messages, long oldestNanos, long flushedNanos) {
            events.add("delivered " + transport + " " + messages);
            oldest.add(oldestNanos);
            flushed.add(flushedNanos);
        }

        @Override
        public void queueDepth(int depth) {
            events.add("depth " + depth);
        }

        @Override
        public void recovery(String outcome, long replayed) {
            events.add("recovery " + outcome + " " + replayed);
        }

        @Override
        public void queueOverflowed(QueueOverflow policy) {
            events.add("overflow " + policy);
        }

        List<String> named(String prefix) {
            return events.stream().filter(e -> e.startsWith(prefix)).toList();
        }
    }

    @Test
    void theObserverHearsHandshakesPublishesDeliveriesAndRemovals() {
        Recorder recorder = new Recorder();
        server.observe(recorder);
        TestClient subscriber = new TestClient(server, true).connected();
        subscriber.subscribe("/chat/room");
        TestClient publisher = new TestClient(server, true).connected();
        long before = System.nanoTime();
        publisher.publish("/chat/room", Map.of("text", "hi"));
        assertEquals(Map.of("text", "hi"), subscriber.nextPushed().get("data"));

        String transport = subscriber.transportName();
        assertEquals(List.of("handshake " + transport + " null", "handshake " + transport + " null"), recorder.named("handshake"));
        assertEquals(List.of("published " + transport), recorder.named("published"));
        assertEquals(List.of("delivered " + transport + " 1"), recorder.named("delivered"));
        assertEquals(List.of("depth 1"), recorder.named("depth"));
        assertTrue(recorder.oldest.get(0) >= before, "the message's arrival, read when it arrived");
        assertTrue(recorder.flushed.get(0) >= recorder.oldest.get(0), "its flush, after it");

        publisher.publish("/meta/nothing/../x", "bad");
        publisher.publish("/chat/*", "to a wildcard");
        assertEquals(List.of("refused 405::channel_invalid"), recorder.named("refused"));

        publisher.disconnect();
        assertEquals(List.of("removed " + transport + " CLIENT"), recorder.named("removed"));
        server.removeSession(server.getSession(subscriber.clientId()));
        assertEquals(List.of("removed " + transport + " CLIENT", "removed " + transport + " SERVER"), recorder.named("removed"));
    }

    @Test
    @SuppressWarnings("unchecked")
    void recoveriesFromHistoryAreHeardWithWhatTheyReplayed() {
        server.createChannelIfAbsent("/chat/room").getReference().setHistory(io.bayeux.api.server.HistoryPolicy.of(10, java.time.Duration.ofMinutes(5)));
        Recorder recorder = new Recorder();
        server.observe(recorder);
        TestClient first = new TestClient(server, true).connected();
        Map<String, Object> joined = first.subscribe("/chat/room");
        Map<String, Object> position = (Map<String, Object>) ((Map<String, Object>) ((Map<String, Object>) joined.get("ext"))
                .get(io.bayeux.api.Position.HISTORY_FIELD)).get("/chat/room");
        assertTrue(recorder.named("recovery").isEmpty(), "a plain subscription asks for no recovery");
        TestClient publisher = new TestClient(server, true).connected();
        for (int i = 0; i < 3; i++) {
            publisher.publish("/chat/room", "m" + i);
        }
        TestClient back = new TestClient(server, true).connected();
        Map<String, Object> from = Map.of("offset", position.get("offset"), "epoch", position.get("epoch"));
        back.call(Map.of("channel", "/meta/subscribe", "subscription", "/chat/room", "ext", Map.of("recover", Map.of("/chat/room", from))));
        back.call(Map.of("channel", "/meta/subscribe", "subscription", "/chat/room",
                "ext", Map.of("recover", Map.of("/chat/room", Map.of("offset", 0, "epoch", "another")))));
        assertEquals(List.of("recovery recovered 3", "recovery epoch 0"), recorder.named("recovery"));
    }

    @Test
    void aRefusedHandshakeTellsItsError() {
        Recorder recorder = new Recorder();
        server.observe(recorder);
        server.setSecurityPolicy(new io.bayeux.server.DefaultSecurityPolicy() {
            @Override
            public boolean canHandshake(io.bayeux.api.server.BayeuxServer server, io.bayeux.api.server.ServerSession session,
                                        io.bayeux.api.server.ServerMessage message) {
                return false;
            }
        });
        TestClient client = new TestClient(server, true);
        client.handshake(Map.of());
        assertEquals(List.of("handshake " + client.transportName() + " 403::handshake_denied"), recorder.named("handshake"));
    }

    @Test
    void withoutAnObserverNoArrivalTimeIsRead() {
        assertNull(server.observer());
        TestClient subscriber = new TestClient(server, true).connected();
        subscriber.subscribe("/chat/room");
        List<ServerMessageImpl> seen = new CopyOnWriteArrayList<>();
        server.getChannel("/chat/room").addListener((io.bayeux.api.server.ServerChannel.MessageListener) (from, channel, message) -> {
            seen.add((ServerMessageImpl) message);
            return true;
        });
        new TestClient(server, true).connected().publish("/chat/room", "unmeasured");
        assertEquals(1, seen.size());
        assertEquals(0, seen.get(0).arrivedNanos());
    }

    @Test
    void oneObserverAtATime() {
        Recorder first = new Recorder();
        server.observe(first);
        assertThrows(IllegalStateException.class, () -> server.observe(new Recorder()));
        server.observe(null);
        Recorder second = new Recorder();
        server.observe(second);
        assertEquals(second, server.observer());
    }
}
