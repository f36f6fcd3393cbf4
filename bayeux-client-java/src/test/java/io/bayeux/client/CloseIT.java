package io.bayeux.client;

import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.netty.channel.EventLoopGroup;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

import static io.bayeux.client.Clients.WAIT;
import static io.bayeux.client.Clients.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link BayeuxClient#close()}: what try-with-resources leaves behind, on the server and in the client. */
class CloseIT {
    /** Far longer than any wait of these tests: a close that waited for it would fail them. */
    private static final Duration LONG_NETWORK_DELAY = Duration.ofMinutes(1);

    @RegisterExtension
    final ServerAndClients fixture = new ServerAndClients();

    /** Records the id of every session the server removes, and whether it expired. */
    private BlockingQueue<String> recordRemovals() {
        BlockingQueue<String> removed = new LinkedBlockingQueue<>();
        fixture.server().bayeux().addListener(new BayeuxServer.SessionListener() {
            @Override
            public void sessionAdded(ServerSession session, ServerMessage message) {
            }

            @Override
            public void sessionRemoved(ServerSession session, ServerMessage message, boolean timeout) {
                removed.add(session.getId() + (timeout ? " expired" : " removed"));
            }
        });
        return removed;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void tryWithResourcesLeavesNoSessionOnTheServer(String transport) throws Exception {
        fixture.start();
        BlockingQueue<String> removed = recordRemovals();
        ClientConfig config = ClientConfig.builder().build();
        BayeuxClient closed;
        String id;
        try (BayeuxClient client = Clients.client(fixture.uri(), config, Clients.transport(transport, config))) {
            closed = Clients.connect(client);
            id = client.getId();
        }
        // close() waited for the disconnect's reply.
        assertTrue(closed.isDisconnected(), () -> "not disconnected: " + closed);
        assertEquals(id + " removed", next(removed));
        assertTrue(fixture.server().bayeux().getSessions().isEmpty(), () -> "sessions left: " + fixture.server().bayeux().getSessions());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void closeReturnsPromptlyWhenTheServerIsGone(String transport) throws Exception {
        fixture.start();
        BayeuxClient client = fixture.client(transport, ClientConfig.builder().maxNetworkDelay(LONG_NETWORK_DELAY).build());
        Clients.connect(client);
        fixture.stopServer();
        assertTimeoutPreemptively(WAIT, client::close);
        assertTrue(client.isDisconnected(), () -> "not disconnected: " + client);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void closeFromAListenerReturnsWithoutWaitingAndStillDisconnects(String transport) throws Exception {
        fixture.start();
        BlockingQueue<String> removed = recordRemovals();
        BayeuxClient client = fixture.client(transport, ClientConfig.builder().maxNetworkDelay(LONG_NETWORK_DELAY).build());
        Clients.connect(client);
        String id = client.getId();
        BlockingQueue<String> closed = new LinkedBlockingQueue<>();
        client.getChannel("/news").publish("last words", reply -> {
            // On the client's event loop: waiting here for the disconnect's reply would wait for itself.
            client.close();
            closed.add(Thread.currentThread().getName());
        });
        next(closed);
        assertEquals(id + " removed", next(removed));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void closeTwiceIsHarmlessAndLeavesASharedGroupRunning(String transport) throws Exception {
        fixture.start();
        BlockingQueue<String> removed = recordRemovals();
        EventLoopGroup shared = fixture.eventLoopGroup(1);
        BayeuxClient client = fixture.client(transport, ClientConfig.builder().eventLoopGroup(shared).build());
        Clients.connect(client);
        String id = client.getId();
        client.close();
        assertTimeoutPreemptively(WAIT, client::close);
        assertEquals(id + " removed", next(removed));
        assertTrue(client.isDisconnected(), () -> "not disconnected: " + client);
        assertFalse(shared.isShuttingDown(), "the shared group was shut down");
    }
}
