package io.bayeux.server.internal;

import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.SecurityPolicy;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HandshakeTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private BayeuxServerImpl server;

    @BeforeEach
    void start() {
        server = new BayeuxServerImpl(scheduler.config().executor(Runnable::run)
                .allowedTransports(List.of("websocket", "long-polling")).build()).start();
    }

    @AfterEach
    void stop() {
        server.stop();
    }

    @Test
    void successfulHandshakeAnswersVersionTransportsClientIdAndAdvice() {
        TestClient client = new TestClient(server, false);
        Map<String, Object> reply = client.handshake(null);
        assertEquals(true, reply.get("successful"));
        assertEquals("1.0", reply.get("version"));
        assertEquals(List.of("websocket", "long-polling"), reply.get("supportedConnectionTypes"));
        assertNotNull(reply.get("clientId"));
        assertEquals("1", reply.get("id"));
        @SuppressWarnings("unchecked")
        Map<String, Object> advice = (Map<String, Object>) reply.get("advice");
        assertEquals("retry", advice.get("reconnect"));
        assertEquals(20000, ((Number) advice.get("timeout")).intValue());
        assertEquals(0, ((Number) advice.get("interval")).intValue());
        assertNotNull(server.getSession((String) reply.get("clientId")));
    }

    @Test
    void maxIntervalIsAdvisedWhenEnabled() {
        server.stop();
        server = new BayeuxServerImpl(scheduler.config().executor(Runnable::run).adviseMaxInterval(true).build()).start();
        Map<String, Object> reply = new TestClient(server, false).handshake(null);
        assertEquals(10000, ((Number) ((Map<?, ?>) reply.get("advice")).get("maxInterval")).intValue());
    }

    @Test
    void noTransportInCommonFailsNamingTheServersTransports() {
        TestClient client = new TestClient(server, false);
        Map<String, Object> reply = client.handshake(Map.of("supportedConnectionTypes", List.of("callback-polling", "iframe")));
        assertEquals(false, reply.get("successful"));
        assertEquals("403:websocket,long-polling:unsupported_connection_types", reply.get("error"));
        assertEquals(List.of("websocket", "long-polling"), reply.get("supportedConnectionTypes"));
        assertEquals("none", ((Map<?, ?>) reply.get("advice")).get("reconnect"));
        assertTrue(server.getSessions().isEmpty());
    }

    @Test
    void oneTransportInCommonIsEnough() {
        Map<String, Object> reply = new TestClient(server, false)
                .handshake(Map.of("supportedConnectionTypes", List.of("callback-polling", "long-polling")));
        assertEquals(true, reply.get("successful"));
    }

    @Test
    void unsupportedVersionIsRefused() {
        Map<String, Object> reply = new TestClient(server, false).handshake(Map.of("version", "2.0"));
        assertEquals(false, reply.get("successful"));
        assertEquals("400:2.0:version_unsupported", reply.get("error"));
    }

    @Test
    void securityPolicyMayDenyTheHandshake() {
        server.setSecurityPolicy(new SecurityPolicy() {
            @Override
            public boolean canHandshake(BayeuxServer s, ServerSession session, ServerMessage message) {
                Map<String, Object> ext = message.getExt();
                return ext != null && "secret".equals(ext.get("token"));
            }
        });
        Map<String, Object> denied = new TestClient(server, false).handshake(Map.of("ext", Map.of("token", "wrong")));
        assertEquals(false, denied.get("successful"));
        assertEquals("403::handshake_denied", denied.get("error"));
        assertEquals("none", ((Map<?, ?>) denied.get("advice")).get("reconnect"));
        assertNull(denied.get("clientId"));
        assertTrue(server.getSessions().isEmpty());

        Map<String, Object> allowed = new TestClient(server, false).handshake(Map.of("ext", Map.of("token", "secret")));
        assertEquals(true, allowed.get("successful"));
    }

    @Test
    void clientIdsAreLongRandomAndDistinct() {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            String id = (String) new TestClient(server, false).handshake(null).get("clientId");
            assertTrue(id.length() * 4 >= 128, "at least 128 bits in " + id);
            assertTrue(ids.add(id));
        }
        // No two consecutive ids share a long common prefix, as a counter would.
        List<String> list = List.copyOf(ids);
        assertFalse(list.get(0).regionMatches(0, list.get(1), 0, 12));
    }

    @Test
    void sessionListenersHearOfAddedSessions() {
        List<String> added = new java.util.concurrent.CopyOnWriteArrayList<>();
        server.addListener(new BayeuxServer.SessionListener() {
            @Override
            public void sessionAdded(ServerSession session, ServerMessage message) {
                added.add(session.getId());
            }

            @Override
            public void sessionRemoved(ServerSession session, ServerMessage message, boolean timeout) {
            }
        });
        String id = (String) new TestClient(server, true).handshake(null).get("clientId");
        assertEquals(List.of(id), added);
    }
}
