package io.bayeux.server.internal;

import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.server.BayeuxServerConfig;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The session listeners CometD users reach for: AddedListener, QueueListener, HeartBeatListener. */
class SessionListenersTest extends ServerTestSupport {
    private static final long TIMEOUT = BayeuxServerConfig.DEFAULT_TIMEOUT.toMillis();

    @Test
    void anAddedListenerInstalledDuringTheHandshakeIsToldOfTheAdditionBeforeTheServersSessionListeners() {
        List<String> told = new CopyOnWriteArrayList<>();
        server.addExtension(new BayeuxServer.Extension() {
            @Override
            public boolean rcvMeta(ServerSession from, ServerMessage.Mutable message) {
                if ("/meta/handshake".equals(message.getChannel())) {
                    from.addListener((ServerSession.AddedListener) (session, handshake) -> {
                        assertSame(from, session);
                        told.add("added:" + handshake.getChannel());
                    });
                }
                return true;
            }
        });
        server.addListener(new BayeuxServer.SessionListener() {
            @Override
            public void sessionAdded(ServerSession session, ServerMessage message) {
                told.add("sessionAdded");
            }

            @Override
            public void sessionRemoved(ServerSession session, ServerMessage message, boolean timeout) {
            }
        });
        new TestClient(server, false).connected();
        assertEquals(List.of("added:/meta/handshake", "sessionAdded"), told);
    }

    @Test
    void aQueueListenerIsToldOfEachQueuedMessageWithItsSender() {
        TestClient alice = new TestClient(server, false).connected();
        TestClient bob = new TestClient(server, false).connected();
        bob.subscribe("/chat");
        List<String> queued = new CopyOnWriteArrayList<>();
        server.getSession(bob.clientId()).addListener((ServerSession.QueueListener) (sender, message) ->
                queued.add((sender == null ? "server" : sender.getId()) + ":" + message.getData()));

        alice.publish("/chat", "one");
        server.getChannel("/chat").publish(null, "two", io.bayeux.api.Promise.noop());
        assertEquals(List.of(alice.clientId() + ":one", "server:two"), queued);
    }

    @Test
    void aHeartBeatListenerIsToldWhenAConnectIsHeldAndWhenItIsAnswered() {
        TestClient client = new TestClient(server, false).connected();
        List<String> beats = new CopyOnWriteArrayList<>();
        server.getSession(client.clientId()).addListener(new ServerSession.HeartBeatListener() {
            @Override
            public void onSuspended(ServerSession session, ServerMessage message, long timeout) {
                beats.add("suspended:" + message.getChannel() + ":" + timeout);
            }

            @Override
            public void onResumed(ServerSession session, ServerMessage message, boolean timeout) {
                beats.add("resumed:" + message.getChannel() + ":" + timeout);
            }
        });

        var held = client.connect();
        assertEquals(List.of("suspended:/meta/connect:" + TIMEOUT), beats);
        scheduler.advance(TIMEOUT);
        assertTrue(held.isDone());
        assertEquals(List.of("suspended:/meta/connect:" + TIMEOUT, "resumed:/meta/connect:true"), beats);

        beats.clear();
        client.subscribe("/news");
        var next = client.connect();
        server.getChannel("/news").publish(null, "flash", io.bayeux.api.Promise.noop());
        assertTrue(next.isDone());
        assertEquals(List.of("suspended:/meta/connect:" + TIMEOUT, "resumed:/meta/connect:false"), beats, "answered by a message, not the timeout");
    }
}
