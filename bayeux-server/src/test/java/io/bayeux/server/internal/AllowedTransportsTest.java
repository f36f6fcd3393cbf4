package io.bayeux.server.internal;

import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.SecurityPolicy;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code allowedTransports} is enforced: every message must arrive over an allowed transport. */
class AllowedTransportsTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private BayeuxServerImpl server;

    private BayeuxServerImpl start(List<String> allowed) {
        server = new BayeuxServerImpl(scheduler.config().allowedTransports(allowed).build()).start();
        return server;
    }

    @AfterEach
    void stop() {
        server.stop();
    }

    @Test
    void aHandshakeOverADisallowedTransportIsRefusedBeforeAnyPolicyOrListenerSeesIt() {
        start(List.of("websocket"));
        AtomicInteger seen = new AtomicInteger();
        server.setSecurityPolicy(new SecurityPolicy() {
            @Override
            public boolean canHandshake(BayeuxServer bayeux, ServerSession session, ServerMessage message) {
                seen.incrementAndGet();
                return true;
            }
        });
        server.addExtension(new BayeuxServer.Extension() {
            @Override
            public boolean rcvMeta(ServerSession from, ServerMessage.Mutable message) {
                seen.incrementAndGet();
                return true;
            }
        });

        Map<String, Object> reply = new TestClient(server, false).handshake(null);

        assertEquals(false, reply.get("successful"));
        assertEquals("403:long-polling:transport_not_allowed", reply.get("error"));
        assertEquals(List.of("websocket"), reply.get("supportedConnectionTypes"));
        assertEquals(Map.of("reconnect", "none"), reply.get("advice"));
        assertEquals(0, seen.get(), "neither the extension nor the policy saw the refused handshake");
        assertTrue(server.getSessions().isEmpty());
    }

    @Test
    void aSessionMadeOverAnAllowedTransportCannotBeUsedOverADisallowedOne() {
        start(List.of("websocket"));
        TestClient websocket = new TestClient(server, true).connected();
        TestClient other = new TestClient(server, true).connected();
        other.subscribe("/chat");
        TestClient longPolling = new TestClient(server, false);
        longPolling.clientId(websocket.clientId());

        Map<String, Object> connect = TestClient.reply(longPolling.call(longPolling.connectMessage()), "/meta/connect");
        Map<String, Object> subscribe = longPolling.subscribe("/chat");
        Map<String, Object> publish = longPolling.publish("/chat", "over long-polling");

        for (Map<String, Object> reply : List.of(connect, subscribe, publish)) {
            assertEquals(false, reply.get("successful"), reply::toString);
            assertEquals("403:long-polling:transport_not_allowed", reply.get("error"));
            assertEquals("handshake", ((Map<?, ?>) reply.get("advice")).get("reconnect"));
        }
        assertTrue(server.getSession(websocket.clientId()).getSubscriptions().isEmpty(), "the subscribe changed nothing");
        assertEquals(true, websocket.publish("/chat", "over websocket").get("successful"));
        assertEquals("over websocket", other.nextPushed().get("data"), "the refused publish never reached the subscriber");
    }

    @Test
    void aLongPollingOnlyServerRefusesWebSocketMessagesAndServesLongPolling() {
        start(List.of("long-polling"));

        Map<String, Object> refused = new TestClient(server, true).handshake(null);
        TestClient longPolling = new TestClient(server, false).connected();

        assertEquals("403:websocket:transport_not_allowed", refused.get("error"));
        assertEquals(List.of("long-polling"), refused.get("supportedConnectionTypes"));
        assertEquals(true, longPolling.publish("/chat", "hello").get("successful"));
    }

    @Test
    void aHandshakeOfferingNoAllowedTransportIsRefusedNamingTheAllowedOnes() {
        start(List.of("websocket"));

        Map<String, Object> reply = new TestClient(server, true).handshake(Map.of("supportedConnectionTypes", List.of("long-polling")));

        assertEquals(false, reply.get("successful"));
        assertEquals("403:websocket:unsupported_connection_types", reply.get("error"));
        assertEquals(List.of("websocket"), reply.get("supportedConnectionTypes"));
        assertEquals("none", ((Map<?, ?>) reply.get("advice")).get("reconnect"));
    }

    @Test
    void localSessionsAreNeverRefused() {
        start(List.of("websocket"));
        var local = server.newLocalSession("service");

        local.handshake();

        assertTrue(local.isHandshook());
    }
}
