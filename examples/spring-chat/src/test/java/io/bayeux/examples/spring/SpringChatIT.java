package io.bayeux.examples.spring;

import io.bayeux.api.Message;
import io.bayeux.client.BayeuxClient;
import io.bayeux.client.ClientConfig;
import io.bayeux.client.transport.ClientTransport;
import io.bayeux.client.transport.LongPollingTransport;
import io.bayeux.client.transport.WebSocketTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Spring chat example on a free port, with this project's Java client over both transports. */
@SpringBootTest(classes = SpringChatApplication.class, properties = {"bayeux.port=0", "chat.max-length=20"})
class SpringChatIT {
    private static final Duration WAIT = Duration.ofSeconds(10);

    @Value("${local.bayeux.port}")
    int port;
    private final ClientConfig config = ClientConfig.builder().build();
    private final List<BayeuxClient> clients = new ArrayList<>();

    @AfterEach
    void closeClients() {
        clients.forEach(BayeuxClient::close);
    }

    private BayeuxClient connected(String transportName) throws InterruptedException {
        ClientTransport transport = transportName.equals(WebSocketTransport.NAME) ? new WebSocketTransport(config) : new LongPollingTransport(config);
        BayeuxClient client = new BayeuxClient("http://127.0.0.1:" + port + "/cometd", config, transport);
        clients.add(client);
        client.handshake();
        assertTrue(client.waitFor(WAIT, BayeuxClient.State.CONNECTED), () -> "not connected: " + client);
        return client;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void membersJoinChatAndLeave(String transport) throws Exception {
        String room = "room-" + transport;
        BayeuxClient alice = connected(transport);
        BlockingQueue<Message> members = new LinkedBlockingQueue<>();
        BlockingQueue<Message> replies = new LinkedBlockingQueue<>();
        alice.getChannel("/members/" + room).subscribe((c, m) -> members.add(m), replies::add);
        assertTrue(next(replies).isSuccessful());
        alice.remoteCall("chat/join", Map.of("room", room, "user", "alice"), replies::add);
        assertEquals(List.of("alice"), next(replies).getData());
        assertEquals(List.of("alice"), next(members).getData());

        BayeuxClient bob = connected(transport);
        BlockingQueue<Message> chat = new LinkedBlockingQueue<>();
        bob.getChannel("/chat/" + room).subscribe((c, m) -> chat.add(m), replies::add);
        assertTrue(next(replies).isSuccessful());
        bob.remoteCall("chat/join", Map.of("room", room, "user", "bob"), replies::add);
        assertEquals(List.of("alice", "bob"), next(replies).getData());
        assertEquals(List.of("alice", "bob"), next(members).getData());

        alice.getChannel("/chat/" + room).publish(Map.of("user", "alice", "text", "hi bob"), replies::add);
        assertTrue(next(replies).isSuccessful());
        assertEquals(Map.of("user", "alice", "text", "hi bob"), next(chat).getData());
        alice.getChannel("/chat/" + room).publish(Map.of("user", "alice", "text", "far longer than twenty"), replies::add);
        assertFalse(next(replies).isSuccessful(), "chat.max-length refuses it");

        bob.disconnect();
        assertEquals(List.of("alice"), next(members).getData(), "bob left as his session went");
        assertTrue(chat.isEmpty(), chat::toString);
    }

    @Test
    void aJoinWithoutARoomFails() throws Exception {
        BayeuxClient client = connected("websocket");
        BlockingQueue<Message> replies = new LinkedBlockingQueue<>();
        client.remoteCall("chat/join", Map.of("user", "alice"), replies::add);
        assertFalse(next(replies).isSuccessful());
    }

    @Test
    void thePageAndTheClientModulesAreServed() throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<String> page = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, page.statusCode());
            assertTrue(page.body().contains("chat/join"), page.body());
            HttpResponse<String> module = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/js/index.js")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, module.statusCode());
            assertTrue(module.body().contains("BayeuxClient"));
        }
    }

    private static <T> T next(BlockingQueue<T> queue) throws InterruptedException {
        T element = queue.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertNotNull(element, "nothing arrived within " + WAIT);
        return element;
    }
}
