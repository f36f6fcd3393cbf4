package io.bayeux.interop;

import jakarta.websocket.HandshakeResponse;
import org.cometd.bayeux.Message;
import org.cometd.client.BayeuxClient;
import org.cometd.client.websocket.common.AbstractWebSocketTransport;
import org.cometd.client.websocket.jakarta.WebSocketTransport;
import org.eclipse.jetty.ee10.websocket.jakarta.client.JakartaWebSocketClientContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The official CometD Java client (8.x), unmodified, with its {@code permessageDeflate} option
 * on, over Jetty's Jakarta WebSocket client (which implements the extension; Tyrus does not),
 * against the demo server: the extension is negotiated without context takeover, and large
 * messages go compressed both ways.
 */
class CometDJavaClientDeflateIT {
    private static final long WAIT = 10;
    private static final String TEXT = "a line of chat that says the same thing again and again, ".repeat(40);

    private InteropServer server;
    private JakartaWebSocketClientContainer container;
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private BayeuxClient writer;
    private BayeuxClient reader;

    /** CometD's WebSocket transport, recording what the server answered to its upgrade about extensions. */
    private static final class RecordingTransport extends WebSocketTransport {
        private final CompletableFuture<List<String>> extensions = new CompletableFuture<>();

        RecordingTransport(ScheduledExecutorService scheduler, JakartaWebSocketClientContainer container) {
            super(new HashMap<>(Map.of(AbstractWebSocketTransport.PERMESSAGE_DEFLATE_OPTION, true)), scheduler, container);
        }

        @Override
        protected void onHandshakeResponse(HandshakeResponse response) {
            super.onHandshakeResponse(response);
            extensions.complete(response.getHeaders().entrySet().stream()
                    .filter(header -> header.getKey().equalsIgnoreCase("Sec-WebSocket-Extensions"))
                    .flatMap(header -> header.getValue().stream()).toList());
        }
    }

    @BeforeEach
    void start() throws Exception {
        container = new JakartaWebSocketClientContainer();
        container.start();
    }

    @AfterEach
    void stop() throws Exception {
        for (BayeuxClient client : new BayeuxClient[]{writer, reader}) {
            if (client != null) {
                client.disconnect(2000);
            }
        }
        container.stop();
        scheduler.shutdownNow();
        if (server != null) {
            server.close();
        }
    }

    private BayeuxClient connected(RecordingTransport transport) throws Exception {
        BayeuxClient client = new BayeuxClient(server.uri().toString(), scheduler, transport);
        CompletableFuture<Message> handshake = new CompletableFuture<>();
        client.handshake(handshake::complete);
        Message reply = handshake.get(WAIT, TimeUnit.SECONDS);
        assertTrue(reply.isSuccessful(), reply::toString);
        assertTrue(client.waitFor(WAIT * 1000, BayeuxClient.State.CONNECTED), () -> "not connected: " + client);
        assertEquals("websocket", client.getTransport().getName());
        return client;
    }

    @Test
    void permessageDeflateIsNegotiatedAndLargeMessagesGoCompressedBothWays() throws Exception {
        server = new InteropServer();
        RecordingTransport writerTransport = new RecordingTransport(scheduler, container);
        writer = connected(writerTransport);
        reader = connected(new RecordingTransport(scheduler, container));
        List<String> extensions = writerTransport.extensions.get(WAIT, TimeUnit.SECONDS);
        assertEquals(1, extensions.size(), extensions::toString);
        assertTrue(extensions.get(0).startsWith("permessage-deflate") && extensions.get(0).contains("server_no_context_takeover")
                && extensions.get(0).contains("client_no_context_takeover"), extensions::toString);

        BlockingQueue<Message> received = new LinkedBlockingQueue<>();
        CompletableFuture<Message> subscribed = new CompletableFuture<>();
        reader.getChannel("/chat/deflate").subscribe((channel, message) -> received.add(message), subscribed::complete);
        Message subscribeReply = subscribed.get(WAIT, TimeUnit.SECONDS);
        assertTrue(subscribeReply.isSuccessful(), subscribeReply::toString);
        long before = server.server().websocketCompressions();
        for (int i = 0; i < 2; i++) {
            // Jetty's client compresses what it sends: the server inflates it, then compresses the delivery.
            CompletableFuture<Message> published = new CompletableFuture<>();
            writer.getChannel("/chat/deflate").publish(Map.of("text", TEXT, "n", i), published::complete);
            Message publishReply = published.get(WAIT, TimeUnit.SECONDS);
            assertTrue(publishReply.isSuccessful(), publishReply::toString);
            Message message = received.poll(WAIT, TimeUnit.SECONDS);
            assertNotNull(message, "the reader got nothing");
            assertEquals(TEXT, message.getDataAsMap().get("text"));
            assertEquals(i, ((Number) message.getDataAsMap().get("n")).intValue());
        }
        assertTrue(server.server().websocketCompressions() >= before + 2, "the server compressed both deliveries");
    }

    @Test
    void withAContextPerConnectionAStreamOfSmallMessagesInflatesWithJettysContext() throws Exception {
        server = InteropServer.withCompressionContext();
        RecordingTransport readerTransport = new RecordingTransport(scheduler, container);
        reader = connected(readerTransport);
        writer = connected(new RecordingTransport(scheduler, container));
        List<String> extensions = readerTransport.extensions.get(WAIT, TimeUnit.SECONDS);
        assertEquals(1, extensions.size(), extensions::toString);
        assertTrue(extensions.get(0).startsWith("permessage-deflate") && !extensions.get(0).contains("server_no_context_takeover"),
                extensions::toString);

        BlockingQueue<Message> received = new LinkedBlockingQueue<>();
        CompletableFuture<Message> subscribed = new CompletableFuture<>();
        reader.getChannel("/chat/context").subscribe((channel, message) -> received.add(message), subscribed::complete);
        assertTrue(subscribed.get(WAIT, TimeUnit.SECONDS).isSuccessful());
        long before = server.server().websocketCompressions();
        for (int i = 0; i < 20; i++) {
            String text = "see you at lunch tomorrow, message " + i;
            writer.getChannel("/chat/context").publish(Map.of("text", text));
            Message message = received.poll(WAIT, TimeUnit.SECONDS);
            assertNotNull(message, "the reader got nothing");
            assertEquals(text, message.getDataAsMap().get("text"));
        }
        assertTrue(server.server().websocketCompressions() >= before + 20, "every delivery compressed, small as it is");
    }
}
