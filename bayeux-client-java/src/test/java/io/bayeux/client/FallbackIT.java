package io.bayeux.client;

import io.bayeux.api.Message;
import io.bayeux.client.transport.LongPollingTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

import static io.bayeux.client.Clients.next;
import static io.bayeux.client.Clients.subscribe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A server that refuses WebSocket: the client falls back to long-polling without the application noticing. */
class FallbackIT {
    private final ClientConfig config = ClientConfig.builder().build();
    @RegisterExtension
    final ServerAndClients fixture = new ServerAndClients();

    @Test
    void aRefusedUpgradeFallsBackToLongPollingAndPubSubWorks() throws Exception {
        fixture.start(server -> server.websocket(false));
        BayeuxClient client = fixture.client(config);
        assertEquals(List.of("websocket", "long-polling"), client.getAllowedTransports());
        BlockingQueue<Message> handshake = new LinkedBlockingQueue<>();

        client.handshake(null, handshake::add);

        assertTrue(next(handshake).isSuccessful(), "the handshake that met the refusal went again over long-polling");
        assertTrue(client.waitFor(Clients.WAIT, BayeuxClient.State.CONNECTED), () -> "not connected: " + client);
        assertEquals(LongPollingTransport.NAME, client.getTransportName());
        BlockingQueue<Object> received = new LinkedBlockingQueue<>();
        subscribe(client, "/fallback", (channel, message) -> received.add(message.getData()));
        BlockingQueue<Message> published = new LinkedBlockingQueue<>();
        client.getChannel("/fallback").publish(Map.of("over", "long-polling"), published::add);
        assertTrue(next(published).isSuccessful());
        assertEquals(Map.of("over", "long-polling"), next(received));
    }

    @Test
    void aServerThatOffersOnlyLongPollingIsUsedOverLongPollingEvenWhenTheUpgradeSucceeds() throws Exception {
        fixture.start(server -> server
                .bayeuxConfig(io.bayeux.server.BayeuxServerConfig.builder().allowedTransports(List.of("long-polling")).build()));
        BayeuxClient client = fixture.client(config);

        Clients.connect(client);

        assertEquals(LongPollingTransport.NAME, client.getTransportName());
        BlockingQueue<Message> published = new LinkedBlockingQueue<>();
        client.getChannel("/negotiated").publish("hello", published::add);
        assertTrue(next(published).isSuccessful());
    }
}
