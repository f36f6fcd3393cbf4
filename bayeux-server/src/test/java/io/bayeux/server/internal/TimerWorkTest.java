package io.bayeux.server.internal;

import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.server.BayeuxServerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.bayeux.server.internal.Deliveries.data;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Timers only decide when: what they start (held connect replies, expiry with its listeners,
 * channel removal listeners, lazy flushes) is handed to the executor, never run on the
 * scheduler's thread. The executor here holds the tasks until the test runs them.
 */
class TimerWorkTest {
    private static final long TIMEOUT = BayeuxServerConfig.DEFAULT_TIMEOUT.toMillis();
    private static final long MAX_INTERVAL = BayeuxServerConfig.DEFAULT_MAX_INTERVAL.toMillis();
    private static final long SWEEP_PERIOD = BayeuxServerConfig.DEFAULT_SWEEP_PERIOD.toMillis();
    private static final long MAX_LAZY_TIMEOUT = BayeuxServerConfig.DEFAULT_MAX_LAZY_TIMEOUT.toMillis();

    private final ManualScheduler scheduler = new ManualScheduler();
    private final Queue<Runnable> handedOver = new ConcurrentLinkedQueue<>();
    private BayeuxServerImpl server;

    @BeforeEach
    void start() {
        server = new BayeuxServerImpl(scheduler.config().executor(handedOver::add).build()).start();
    }

    @AfterEach
    void stop() {
        server.stop();
    }

    private int runHandedOver() {
        int count = 0;
        for (Runnable task; (task = handedOver.poll()) != null; count++) {
            task.run();
        }
        return count;
    }

    @Test
    void theTimeoutOfAHeldConnectHandsItsReplyToTheExecutor() {
        TestClient client = new TestClient(server, false).connected();
        var held = client.connect();
        scheduler.advance(TIMEOUT);
        assertFalse(held.isDone(), "the scheduler did not reply itself");
        assertTrue(runHandedOver() > 0);
        assertTrue(held.isDone());
        assertEquals(true, TestClient.reply(held.join(), "/meta/connect").get("successful"));
    }

    @Test
    void expiryRunsTheRemoveAndSessionListenersOnTheExecutor() {
        List<String> told = new CopyOnWriteArrayList<>();
        server.addListener(new BayeuxServer.SessionListener() {
            @Override
            public void sessionAdded(ServerSession session, ServerMessage message) {
            }

            @Override
            public void sessionRemoved(ServerSession session, ServerMessage message, boolean timeout) {
                told.add("sessionRemoved:" + timeout + ":" + Thread.currentThread().getName());
            }
        });
        TestClient client = new TestClient(server, false).connected();
        server.getSession(client.clientId()).addListener((ServerSession.RemoveListener) (s, m, timeout) ->
                told.add("removed:" + timeout + ":" + Thread.currentThread().getName()));

        scheduler.advance(MAX_INTERVAL + 2 * SWEEP_PERIOD);
        assertTrue(told.isEmpty(), "nothing ran on the scheduler: " + told);
        assertNotNull(server.getSession(client.clientId()));
        runHandedOver();
        String me = Thread.currentThread().getName();
        assertEquals(List.of("removed:true:" + me, "sessionRemoved:true:" + me), told);
        assertNull(server.getSession(client.clientId()));
    }

    @Test
    void theRemovalListenersOfASweptChannelRunOnTheExecutor() {
        List<String> removed = new CopyOnWriteArrayList<>();
        server.addListener(new BayeuxServer.ChannelListener() {
            @Override
            public void channelAdded(ServerChannel channel) {
            }

            @Override
            public void channelRemoved(String channelId) {
                removed.add(channelId);
            }
        });
        server.createChannelIfAbsent("/idle");
        scheduler.advance(3 * SWEEP_PERIOD);
        assertNull(server.getChannel("/idle"), "the sweeper decided");
        assertTrue(removed.isEmpty(), "but did not call the listeners itself");
        runHandedOver();
        assertEquals(List.of("/idle"), removed);
    }

    @Test
    void aLazyFlushRunsOnTheExecutor() {
        server.createChannelIfAbsent("/lazy", channel -> channel.setLazy(true));
        TestClient alice = new TestClient(server, true).connected();
        TestClient bob = new TestClient(server, true).connected();
        bob.subscribe("/lazy");
        alice.publish("/lazy", "zzz");
        scheduler.advance(MAX_LAZY_TIMEOUT);
        assertTrue(bob.pushed.isEmpty(), "the scheduler did not write");
        runHandedOver();
        assertEquals(List.of("zzz"), data(List.of(bob.nextPushed())));
    }
}
