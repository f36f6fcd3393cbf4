package io.bayeux.client;

import io.bayeux.api.Message;
import io.bayeux.client.transport.WebSocketTransport;
import io.bayeux.testing.Await;
import io.bayeux.transport.NettyBayeuxServer;
import io.bayeux.transport.WebSocketCompression;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

import static io.bayeux.client.Clients.next;
import static io.bayeux.client.Clients.subscribe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The WebSocket transport's permessage-deflate, against this project's server and CometD's. */
class WebSocketCompressionIT {
    /** A message large enough for the server to compress, that compresses well. */
    private static final String TEXT = "a chat line that says the same thing again, ".repeat(50);

    private static final List<Object> TWICE = List.of(Map.of("text", TEXT), Map.of("text", TEXT));

    @RegisterExtension
    final ServerAndClients fixture = new ServerAndClients();

    /** Subscribes {@code reader} to /chat, publishes a large message from {@code writer} twice and returns what the reader got. */
    private static List<Object> roundTrip(BayeuxClient writer, BayeuxClient reader) throws InterruptedException {
        BlockingQueue<Message> received = new LinkedBlockingQueue<>();
        subscribe(reader, "/chat", (channel, message) -> received.add(message));
        BlockingQueue<Message> published = new LinkedBlockingQueue<>();
        for (int i = 0; i < 2; i++) {
            writer.getChannel("/chat").publish(Map.of("text", TEXT), published::add);
            assertTrue(next(published).isSuccessful());
        }
        return List.of(next(received).getData(), next(received).getData());
    }

    @Test
    void permessageDeflateIsNegotiatedWithNoContextTakeoverAndLargeMessagesGoCompressed() throws Exception {
        NettyBayeuxServer server = fixture.start();
        ClientConfig config = ClientConfig.builder().build();
        WebSocketTransport writerTransport = new WebSocketTransport(config);
        BayeuxClient writer = Clients.connect(fixture.client(writerTransport, config));
        BayeuxClient reader = Clients.connect(fixture.client(WebSocketTransport.NAME, config));

        String extensions = writerTransport.extensions();
        assertTrue(extensions != null && extensions.startsWith("permessage-deflate")
                && extensions.contains("server_no_context_takeover") && extensions.contains("client_no_context_takeover"), extensions);
        long before = server.websocketCompressions();
        assertEquals(TWICE, roundTrip(writer, reader));
        assertTrue(server.websocketCompressions() > before, "the server compressed the delivery");
    }

    @Test
    void aServerThatKeepsAContextPerConnectionIsUnderstoodAcrossTheReleaseOfItsDeflater() throws Exception {
        WebSocketCompression.Context context = new WebSocketCompression.Context(true, 11, 12, Duration.ofMillis(300));
        NettyBayeuxServer server = fixture.start(b -> b.websocketCompression(WebSocketCompression.DEFAULT.withContext(context)));
        ClientConfig config = ClientConfig.builder().build();
        WebSocketTransport transport = new WebSocketTransport(config);
        BayeuxClient client = Clients.connect(fixture.client(transport, config));
        String extensions = transport.extensions();
        assertTrue(extensions != null && extensions.startsWith("permessage-deflate") && !extensions.contains("server_no_context_takeover"),
                extensions);

        BlockingQueue<Message> received = new LinkedBlockingQueue<>();
        subscribe(client, "/chat", (channel, message) -> received.add(message));
        long before = server.websocketCompressions();
        for (int round = 0; round < 2; round++) {
            List<Object> sent = new ArrayList<>();
            List<Object> got = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                Map<String, Object> data = Map.of("text", "see you at lunch, round " + round + " message " + i);
                sent.add(data);
                server.bayeux().getChannel("/chat").publish(null, data);
                got.add(next(received).getData());
            }
            assertEquals(sent, got);
            // Idle, the connection drops its deflater: the next round starts a fresh stream the client's inflater takes as well.
            Await.until(Clients.WAIT, () -> server.websocketCompressionContexts() == 0, () -> "the deflater dropped");
        }
        assertTrue(server.websocketCompressions() - before >= 20, "every delivery compressed");
    }

    @Test
    void turnedOffTheClientOffersNothing() throws Exception {
        NettyBayeuxServer server = fixture.start();
        ClientConfig config = ClientConfig.builder().websocketCompression(false).build();
        WebSocketTransport transport = new WebSocketTransport(config);
        BayeuxClient client = Clients.connect(fixture.client(transport, config));

        assertNull(transport.extensions());
        assertEquals(TWICE, roundTrip(client, client));
        assertEquals(0, server.websocketCompressions());
    }

    @Test
    void cometDsServerNegotiatesItsDefaultDeflateAndLargeMessagesArriveWhole() throws Exception {
        try (CometDServer cometd = new CometDServer().start()) {
            ClientConfig config = ClientConfig.builder().build();
            WebSocketTransport transport = new WebSocketTransport(config);
            BayeuxClient writer = fixture.add(Clients.connect(Clients.client(cometd.uri(), config, transport)));
            BayeuxClient reader = fixture.add(Clients.connect(Clients.client(cometd.uri(), config, new WebSocketTransport(config))));

            String extensions = transport.extensions();
            assertTrue(extensions != null && extensions.startsWith("permessage-deflate"), extensions);
            // The second message inflates against the first where CometD's side keeps context between messages.
            assertEquals(TWICE, roundTrip(writer, reader));
        }
    }
}
