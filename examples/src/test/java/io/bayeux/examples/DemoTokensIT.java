package io.bayeux.examples;

import io.bayeux.api.Message;
import io.bayeux.client.BayeuxClient;
import io.bayeux.client.ClientConfig;
import io.bayeux.client.ext.TokenExtension;
import io.bayeux.client.transport.LongPollingTransport;
import io.bayeux.common.json.JacksonJsonCodec;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The demo with {@code --token-secret}: its token page, and a client that uses what it mints. */
class DemoTokensIT {
    private static final String SECRET = "the demo's secret, 32 bytes or more";
    private static final Duration WAIT = Duration.ofSeconds(10);

    private NettyBayeuxServer server;
    private BayeuxClient client;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeEach
    void start() {
        DemoTokens tokens = new DemoTokens();
        tokens.set("--token-secret", SECRET);
        NettyBayeuxServer.Builder builder = NettyBayeuxServer.builder().port(0);
        tokens.install(builder);
        server = DemoServer.configure(builder).build().start();
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        server.stop();
        http.close();
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(server.uri().resolve(path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @SuppressWarnings("unchecked")
    private String mint(String user) throws Exception {
        HttpResponse<String> reply = get("/token?user=" + user);
        assertEquals(200, reply.statusCode(), reply.body());
        assertEquals("no-store", reply.headers().firstValue("cache-control").orElse(null));
        return (String) ((Map<String, Object>) new JacksonJsonCodec().parse(reply.body().getBytes(java.nio.charset.StandardCharsets.UTF_8))).get("token");
    }

    private Message send(BlockingQueue<Message> replies) throws InterruptedException {
        Message reply = replies.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertNotNull(reply, "no reply within " + WAIT);
        return reply;
    }

    private Message handshake(String token) throws InterruptedException {
        ClientConfig config = ClientConfig.builder().build();
        client = new BayeuxClient(server.uri().toString(), config, new LongPollingTransport(config));
        if (token != null) {
            client.addExtension(new TokenExtension(token, () -> new CompletableFuture<>()));
        }
        BlockingQueue<Message> reply = new LinkedBlockingQueue<>();
        client.handshake(null, reply::add);
        return send(reply);
    }

    @Test
    void thePageGetsATokenThatOpensTheRoomsAndTheDemosServices() throws Exception {
        assertEquals(400, get("/token?user=").statusCode());
        assertEquals(400, get("/token?user=%3Cscript%3E").statusCode());
        Message refused = handshake(null);
        assertEquals("403:token_missing:handshake_denied", refused.get(Message.ERROR_FIELD));
        client.close();

        assertTrue(handshake(mint("alice")).isSuccessful());
        BlockingQueue<Message> replies = new LinkedBlockingQueue<>();
        client.getChannel("/chat/lobby").subscribe((channel, message) -> {
        }, replies::add);
        assertTrue(send(replies).isSuccessful(), "the rooms, by the token's claims");
        client.getChannel("/members/lobby").subscribe((channel, message) -> {
        }, replies::add);
        assertTrue(send(replies).isSuccessful(), "the members lists, open to all");
        client.getChannel("/service/members").publish(Map.of("room", "/chat/lobby", "user", "alice", "action", "join"), replies::add);
        assertTrue(send(replies).isSuccessful(), "the members service, open to all");
        client.getChannel("/event/orders").subscribe((channel, message) -> {
        }, replies::add);
        assertEquals("403:denied_by_security_policy:subscribe_denied", send(replies).get(Message.ERROR_FIELD));
    }

    @Test
    void withoutASecretTheDemoMintsNoToken() throws Exception {
        DemoTokens tokens = new DemoTokens();
        tokens.set("--token-jwks", "http://127.0.0.1:9/jwks.json");
        NettyBayeuxServer.Builder builder = NettyBayeuxServer.builder().port(0);
        tokens.install(builder);
        NettyBayeuxServer jwksOnly = DemoServer.configure(builder).build().start();
        try {
            HttpResponse<String> reply = http.send(HttpRequest.newBuilder(jwksOnly.uri().resolve(URI.create("/token?user=alice"))).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(404, reply.statusCode());
        } finally {
            jwksOnly.stop();
        }
    }
}
