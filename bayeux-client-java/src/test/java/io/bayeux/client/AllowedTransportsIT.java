package io.bayeux.client;

import io.bayeux.api.Message;
import io.bayeux.client.transport.LongPollingTransport;
import io.bayeux.client.transport.WebSocketTransport;
import io.bayeux.server.BayeuxServerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

import static io.bayeux.client.Clients.next;
import static io.bayeux.client.Clients.subscribe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Java client against servers that allow only one transport. */
class AllowedTransportsIT {
    private final ClientConfig config = ClientConfig.builder().build();
    @RegisterExtension
    final ServerAndClients fixture = new ServerAndClients();
    private BayeuxClient client;

    private void start(List<String> allowed) {
        fixture.start(server -> server.bayeuxConfig(BayeuxServerConfig.builder().allowedTransports(allowed).build()));
    }

    @Test
    void onAWebSocketOnlyServerTheClientConnectsOverWebSocketAndPubSubWorks() throws Exception {
        start(List.of("websocket"));
        client = Clients.connect(fixture.client(config));

        assertEquals(WebSocketTransport.NAME, client.getTransportName());
        assertPubSubWorks();
    }

    @Test
    void onAWebSocketOnlyServerALongPollingOnlyClientIsRefusedAndStops() throws Exception {
        start(List.of("websocket"));
        client = fixture.client(new LongPollingTransport(config), config);
        BlockingQueue<Message> handshake = new LinkedBlockingQueue<>();

        client.handshake(null, handshake::add);

        Message reply = next(handshake);
        assertFalse(reply.isSuccessful());
        assertEquals("403:long-polling:transport_not_allowed", reply.get(Message.ERROR_FIELD));
        assertEquals(List.of("websocket"), reply.get(Message.SUPPORTED_CONNECTION_TYPES_FIELD));
        assertTrue(client.waitFor(Clients.WAIT, BayeuxClient.State.DISCONNECTED), () -> "still trying: " + client);
        assertTrue(fixture.server().bayeux().getSessions().isEmpty());
    }

    @Test
    void onALongPollingOnlyServerTheRefusedUpgradeFallsBackToLongPollingAndPubSubWorks() throws Exception {
        start(List.of("long-polling"));
        client = fixture.client(config);
        BlockingQueue<Message> handshake = new LinkedBlockingQueue<>();

        client.handshake(null, handshake::add);

        assertTrue(next(handshake).isSuccessful());
        assertTrue(client.waitFor(Clients.WAIT, BayeuxClient.State.CONNECTED), () -> "not connected: " + client);
        assertEquals(LongPollingTransport.NAME, client.getTransportName());
        assertPubSubWorks();
    }

    private void assertPubSubWorks() throws InterruptedException {
        BlockingQueue<Object> received = new LinkedBlockingQueue<>();
        subscribe(client, "/allowed", (channel, message) -> received.add(message.getData()));
        BlockingQueue<Message> published = new LinkedBlockingQueue<>();
        client.getChannel("/allowed").publish("hello", published::add);
        assertTrue(next(published).isSuccessful());
        assertEquals("hello", next(received));
    }
}
