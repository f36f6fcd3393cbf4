package io.bayeux.server.internal;

import io.bayeux.api.Channel;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DisconnectTest extends ServerTestSupport {
    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void disconnectRemovesTheSessionTellsRemoveListenersDropsTheQueueAndLaterMessagesGet402(boolean push) {
        TestClient client = new TestClient(server, push).connected();
        client.subscribe("/chat/room");
        ServerSession session = server.getSession(client.clientId());
        session.setMetaConnectDeliveryOnly(true);
        List<Boolean> removed = new CopyOnWriteArrayList<>();
        session.addListener((ServerSession.RemoveListener) (s, m, timeout) -> removed.add(timeout));
        server.getChannel("/chat/room").publish(null, "queued");
        assertEquals(1, session.getQueueSize());

        Map<String, Object> reply = client.disconnect();
        assertEquals(true, reply.get("successful"));
        assertEquals(List.of(false), removed, "told once, not as a timeout");
        assertNull(server.getSession(client.clientId()));
        assertEquals(0, session.getQueueSize(), "the queue is dropped");
        assertTrue(server.getChannel("/chat/room").getSubscribers().isEmpty());

        Map<String, Object> connect = TestClient.reply(client.connect().join(), "/meta/connect");
        assertEquals("402::session_unknown", connect.get("error"));
        Map<String, Object> publish = client.publish("/chat/room", "late");
        assertEquals("402::session_unknown", publish.get("error"));
    }

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void serverSideDisconnectTellsTheClient(boolean push) {
        TestClient client = new TestClient(server, push).connected();
        var held = client.connect();
        server.getSession(client.clientId()).disconnect();
        List<Map<String, Object>> told = push ? List.of(client.nextPushed()) : held.join();
        assertTrue(told.stream().anyMatch(m -> "/meta/disconnect".equals(m.get("channel"))), told.toString());
        assertNull(server.getSession(client.clientId()));
    }

    @Test
    void disconnectWithAnErrorTellsItInTheHeldConnectWithTheAdviceToHandshake() {
        TestClient client = new TestClient(server, false).connected();
        var held = client.connect();
        ((ServerSessionImpl) server.getSession(client.clientId())).disconnect("409::queue_full");
        Map<String, Object> reply = TestClient.reply(held.join(), "/meta/connect");
        assertEquals(false, reply.get("successful"));
        assertEquals("409::queue_full", reply.get("error"));
        assertEquals(client.clientId(), reply.get("clientId"));
        Map<?, ?> advice = (Map<?, ?>) reply.get("advice");
        assertEquals("handshake", advice.get("reconnect"));
        assertEquals(0, ((Number) advice.get("interval")).intValue(), advice.toString());
        assertNull(server.getSession(client.clientId()));
        assertEquals("402::session_unknown", TestClient.reply(client.connect().join(), "/meta/connect").get("error"),
                "the reason is told once");
    }

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void disconnectWithAnErrorWhileNoConnectIsHeldTellsItInTheReplyToTheNextMessage(boolean push) {
        TestClient client = new TestClient(server, push).connected();
        ((ServerSessionImpl) server.getSession(client.clientId())).disconnect("409::queue_full");
        Map<String, Object> reply = TestClient.reply(client.connect().join(), "/meta/connect");
        assertEquals(false, reply.get("successful"));
        assertEquals("409::queue_full", reply.get("error"));
        assertEquals("handshake", ((Map<?, ?>) reply.get("advice")).get("reconnect"));
    }

    @Test
    void aHeldConnectAnsweredByAMessageAsItsSessionIsRemovedWithAnErrorLeavesTheErrorToTheNextConnect() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 3_000; round++) {
                TestClient client = new TestClient(server, false).connected();
                ServerSessionImpl session = (ServerSessionImpl) server.getSession(client.clientId());
                CompletableFuture<List<Map<String, Object>>> held = client.connect();
                assertTrue(session.connectHold().isHeld(), "round " + round + ": held");
                CyclicBarrier start = new CyclicBarrier(2);
                Future<?> message = threads.submit(() -> {
                    start.await();
                    session.deliver(null, "/private", "last", io.bayeux.api.Promise.noop());
                    return null;
                });
                Future<?> removal = threads.submit(() -> {
                    start.await();
                    session.disconnect("409::queue_full");
                    return null;
                });
                message.get(10, TimeUnit.SECONDS);
                removal.get(10, TimeUnit.SECONDS);
                // Told in the held connect's reply, or, when the message answered it first, in the next one's.
                Object error = TestClient.reply(held.get(10, TimeUnit.SECONDS), "/meta/connect").get("error");
                if (error == null) {
                    error = TestClient.reply(client.connect().join(), "/meta/connect").get("error");
                }
                assertEquals("409::queue_full", error, "round " + round);
            }
        } finally {
            threads.shutdownNow();
        }
    }

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void aMessageWhoseSessionIsRemovedWithAnErrorAfterItFoundItsSessionIsToldTheError(boolean push) {
        TestClient client = new TestClient(server, push).connected();
        ServerSessionImpl session = (ServerSessionImpl) server.getSession(client.clientId());
        // The removal comes after the connect found its session and before it is handled: the
        // server's extensions see it in between.
        server.addExtension(new BayeuxServer.Extension() {
            @Override
            public boolean rcvMeta(ServerSession from, ServerMessage.Mutable message) {
                if (from == session && Channel.META_CONNECT.equals(message.getChannel())) {
                    session.disconnect("409::queue_full");
                }
                return true;
            }
        });

        Map<String, Object> reply = TestClient.reply(client.connect().join(), "/meta/connect");

        assertEquals("409::queue_full", reply.get("error"), "the client is told why: " + reply);
        assertEquals("handshake", ((Map<?, ?>) reply.get("advice")).get("reconnect"), reply.toString());
        assertEquals("402::session_unknown", TestClient.reply(client.connect().join(), "/meta/connect").get("error"),
                "the reason is told once");
    }

    @Test
    void aConnectRacingARemovalWithAnErrorIsAnsweredWithTheErrorWithoutWaitingForItsTimeout() throws Exception {
        // The hold timers are the manual scheduler's: a connect held for a removed session would never be answered.
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 3_000; round++) {
                TestClient client = new TestClient(server, false).connected();
                ServerSessionImpl session = (ServerSessionImpl) server.getSession(client.clientId());
                CyclicBarrier start = new CyclicBarrier(2);
                Future<CompletableFuture<List<Map<String, Object>>>> connect = threads.submit(() -> {
                    start.await();
                    return client.connect();
                });
                Future<?> removal = threads.submit(() -> {
                    start.await();
                    session.disconnect("409::queue_full");
                    return null;
                });
                removal.get(10, TimeUnit.SECONDS);
                CompletableFuture<List<Map<String, Object>>> reply = connect.get(10, TimeUnit.SECONDS);
                assertTrue(reply.isDone(), "round " + round + ": the connect is answered now");
                // Told in this reply, or, when the connect was handled before the removal, in the next one's.
                Object error = TestClient.reply(reply.join(), "/meta/connect").get("error");
                if (error == null) {
                    error = TestClient.reply(client.connect().join(), "/meta/connect").get("error");
                }
                assertEquals("409::queue_full", error, "round " + round);
            }
        } finally {
            threads.shutdownNow();
        }
    }
}
