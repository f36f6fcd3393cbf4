package io.bayeux.transport;

import io.bayeux.server.BayeuxServerConfig;
import io.bayeux.server.QueueOverflow;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Settings are frozen at build(), and a Bayeux configuration merges with the server's own settings. */
class ServerSettingsIT {
    @Test
    void aBayeuxConfigThatSetsOnlyATimeoutKeepsTheMaxQueueAndTheTransportsTheServerSays() throws Exception {
        try (NettyBayeuxServer server = NettyBayeuxServer.builder().port(0).websocket(false).jsonp(true)
                .bayeuxConfig(BayeuxServerConfig.builder().timeout(Duration.ofSeconds(1)).build())
                .build().start();
             RawClient client = new RawClient(server.uri(), false).open()) {
            assertRefusedUpgrade(server.uri());
            Map<String, Object> handshake = client.handshake();
            assertEquals(true, handshake.get("successful"));
            assertEquals(List.of("long-polling", "callback-polling"), handshake.get("supportedConnectionTypes"),
                    "websocket(false) and jsonp(true) still hold");
            assertEquals(ServerSettings.DEFAULT_MAX_QUEUE, server.bayeux().getSession(client.clientId()).getMaxQueue(),
                    "the queue stays bounded at the server's default");
            Map<?, ?> advice = (Map<?, ?>) RawClient.reply(client.connect(), "/meta/connect").get("advice");
            assertEquals(1000, ((Number) advice.get("timeout")).intValue(), "the timeout set holds");
        }
    }

    @Test
    void whatABayeuxConfigSetsWinsOverTheServersSettings() {
        ServerSettings settings = NettyBayeuxServer.builder().maxQueue(50, QueueOverflow.DROP_OLDEST).jsonp(true)
                .bayeuxConfig(BayeuxServerConfig.builder().maxQueue(7).allowedTransports(List.of("long-polling")).build())
                .settings();
        assertEquals(7, settings.bayeux().maxQueue());
        assertEquals(List.of("long-polling"), settings.bayeux().allowedTransports());
        assertEquals(QueueOverflow.DROP_OLDEST, settings.bayeux().queueOverflow(), "the configuration left the overflow to the server");

        ServerSettings overflow = NettyBayeuxServer.builder().maxQueue(50, QueueOverflow.DROP_OLDEST)
                .bayeuxConfig(BayeuxServerConfig.builder().queueOverflow(QueueOverflow.DROP_NEWEST).build())
                .settings();
        assertEquals(50, overflow.bayeux().maxQueue());
        assertEquals(QueueOverflow.DROP_NEWEST, overflow.bayeux().queueOverflow());
    }

    @Test
    void aBuilderChangedAfterBuildDoesNotChangeTheRunningServer() throws Exception {
        NettyBayeuxServer.Builder builder = NettyBayeuxServer.builder().port(0);
        try (NettyBayeuxServer server = builder.build().start()) {
            builder.path("/elsewhere").websocket(false).staticRoot("classpath:/static-test")
                    .maxQueue(3, QueueOverflow.DROP_NEWEST);

            assertEquals("/cometd", server.settings().path());
            assertEquals(List.of(), server.settings().staticRoots());
            assertThrows(UnsupportedOperationException.class, () -> server.settings().staticRoots().add("/tmp"));
            try (RawClient client = new RawClient(server.uri(), true).open()) {
                Map<String, Object> handshake = client.handshake();
                assertEquals(true, handshake.get("successful"), "WebSocket still served on the path the server was built with");
                assertEquals(ServerSettings.DEFAULT_MAX_QUEUE, server.bayeux().getSession(client.clientId()).getMaxQueue());
            }
            try (HttpClient http = HttpClient.newHttpClient()) {
                HttpResponse<String> file = http.send(HttpRequest.newBuilder(server.uri().resolve("/hello.txt")).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertEquals(404, file.statusCode(), "no static root was added to the running server");
            }
        }
    }

    private static void assertRefusedUpgrade(URI endpoint) throws Exception {
        URI ws = URI.create(endpoint.toString().replaceFirst("^http", "ws"));
        try (HttpClient http = HttpClient.newHttpClient()) {
            ExecutionException failure = assertThrows(ExecutionException.class, () -> http.newWebSocketBuilder()
                    .buildAsync(ws, new WebSocket.Listener() {
                    }).get(5, TimeUnit.SECONDS));
            assertEquals(400, assertInstanceOf(WebSocketHandshakeException.class, failure.getCause()).getResponse().statusCode());
        }
    }
}
