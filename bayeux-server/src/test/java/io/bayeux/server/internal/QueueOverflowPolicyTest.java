package io.bayeux.server.internal;

import io.bayeux.api.Promise;
import io.bayeux.api.server.ServerSession;
import io.bayeux.server.BayeuxServerConfig;
import io.bayeux.server.QueueOverflow;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The overflow policy is a protocol setting: merged like the other transport defaults, and applied to each full queue. */
class QueueOverflowPolicyTest {
    private final ManualScheduler scheduler = new ManualScheduler();

    @Test
    void transportDefaultsFillOnlyWhatTheConfigurationLeftUnset() {
        BayeuxServerConfig unset = BayeuxServerConfig.builder().timeout(Duration.ofSeconds(3)).build()
                .withTransportDefaults(1000, QueueOverflow.DROP_OLDEST, List.of("long-polling"));
        assertEquals(1000, unset.maxQueue());
        assertEquals(QueueOverflow.DROP_OLDEST, unset.queueOverflow());
        assertEquals(List.of("long-polling"), unset.allowedTransports());
        assertEquals(3000, unset.timeout().toMillis(), "what was set stays");

        BayeuxServerConfig set = BayeuxServerConfig.builder().maxQueue(-1).queueOverflow(QueueOverflow.DROP_NEWEST)
                .allowedTransports(List.of("websocket")).build()
                .withTransportDefaults(1000, QueueOverflow.DROP_OLDEST, List.of("long-polling"));
        assertEquals(-1, set.maxQueue(), "an explicit unbounded queue stays unbounded");
        assertEquals(QueueOverflow.DROP_NEWEST, set.queueOverflow());
        assertEquals(List.of("websocket"), set.allowedTransports());
        assertEquals(QueueOverflow.DISCONNECT, BayeuxServerConfig.defaults().queueOverflow());
    }

    @Test
    void dropOldestMakesRoomAndDropNewestRefuses() {
        assertEquals(List.of("m1", "m2"), queuedOfThree(QueueOverflow.DROP_OLDEST));
        assertEquals(List.of("m0", "m1"), queuedOfThree(QueueOverflow.DROP_NEWEST));
    }

    @Test
    void disconnectRemovesTheSessionOnTheExecutorOnceAndTellsItsClientWhy() {
        List<Runnable> tasks = new ArrayList<>();
        BayeuxServerImpl server = bounded();
        try {
            server.addListener(new QueueOverflowPolicy(QueueOverflow.DISCONNECT, tasks::add));
            TestClient bob = new TestClient(server, false).connected();
            ServerSession session = server.getSession(bob.clientId());
            deliverNumbered(session, 4);
            assertEquals(1, tasks.size(), "one disconnect, whatever overflows meanwhile");
            assertNotNull(server.getSession(bob.clientId()), "not under the session's lock");
            tasks.forEach(Runnable::run);
            assertNull(server.getSession(bob.clientId()));
        } finally {
            server.stop();
        }
    }

    @Test
    void disconnectRefusesWhatFollowsTheDroppedMessageThoughTheQueueDrainsBeforeTheRemoval() {
        List<Runnable> tasks = new ArrayList<>();
        BayeuxServerImpl server = bounded();
        try {
            server.addListener(new QueueOverflowPolicy(QueueOverflow.DISCONNECT, tasks::add));
            TestClient bob = new TestClient(server, false).connected();
            ServerSession session = server.getSession(bob.clientId());
            deliverNumbered(session, 3);
            assertEquals(List.of("m0", "m1"), Deliveries.data(Deliveries.drain(bob)), "m2 overflowed");
            session.deliver(null, "/chat/room", "m3", Promise.noop());
            assertEquals(List.of(), Deliveries.data(Deliveries.drain(bob)),
                    "m3 never reaches the client: its last message is where it recovers from");
            tasks.forEach(Runnable::run);
            assertNull(server.getSession(bob.clientId()));
            assertEquals(QueueOverflowPolicy.QUEUE_FULL, TestClient.reply(bob.call(bob.connectMessage()), "/meta/connect").get("error"), "told why");
        } finally {
            server.stop();
        }
    }

    /** Delivers m0, m1, ... ({@code count} messages) to {@code session} on {@code /chat/room}. */
    private static void deliverNumbered(ServerSession session, int count) {
        for (int i = 0; i < count; i++) {
            session.deliver(null, "/chat/room", "m" + i, Promise.noop());
        }
    }

    /** What a session with room for two keeps of three messages. */
    private List<Object> queuedOfThree(QueueOverflow overflow) {
        BayeuxServerImpl server = bounded();
        try {
            server.addListener(new QueueOverflowPolicy(overflow, Runnable::run));
            TestClient bob = new TestClient(server, false).connected();
            ServerSession session = server.getSession(bob.clientId());
            deliverNumbered(session, 3);
            return Deliveries.drain(bob).stream().map(message -> message.get("data")).toList();
        } finally {
            server.stop();
        }
    }

    private BayeuxServerImpl bounded() {
        return new BayeuxServerImpl(scheduler.config().executor(Runnable::run).maxQueue(2).build()).start();
    }
}
