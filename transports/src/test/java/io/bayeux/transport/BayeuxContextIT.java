package io.bayeux.transport;

import io.bayeux.api.server.BayeuxContext;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.SecurityPolicy;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.common.json.JacksonJsonCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import javax.net.ssl.SSLContext;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Application code sees who is connecting: a {@link SecurityPolicy} authenticates handshakes
 * by a header, a cookie or the remote address, over raw long-polling requests and raw
 * WebSocket upgrades, and listeners read {@link BayeuxServer#getContext()}.
 */
class BayeuxContextIT {
    private static final JacksonJsonCodec JSON = new JacksonJsonCodec();
    private static final String HANDSHAKE = "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"websocket\",\"long-polling\"]}]";
    private NettyBayeuxServer server;
    /** The context each sessionAdded saw on its thread. */
    private final BlockingQueue<BayeuxContext> added = new LinkedBlockingQueue<>();

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop();
        }
    }

    /** A server whose handshakes pass only when {@code check} accepts the handshake's context. */
    private void start(Predicate<BayeuxContext> check) {
        start(NettyBayeuxServer.builder(), check);
    }

    private void start(NettyBayeuxServer.Builder builder, Predicate<BayeuxContext> check) {
        server = builder.port(0).service(bayeux -> {
            bayeux.setSecurityPolicy(new SecurityPolicy() {
                @Override
                public boolean canHandshake(BayeuxServer b, ServerSession session, ServerMessage message) {
                    return message.getBayeuxContext() != null && check.test(message.getBayeuxContext());
                }
            });
            bayeux.addListener(new BayeuxServer.SessionListener() {
                @Override
                public void sessionAdded(ServerSession session, ServerMessage message) {
                    added.add(bayeux.getContext());
                }

                @Override
                public void sessionRemoved(ServerSession session, ServerMessage message, boolean timeout) {
                }
            });
        }).build().start();
    }

    /** The handshake reply and the client's own address, over one transport, with extra request headers. */
    private record Handshake(Map<String, Object> reply, InetSocketAddress client) {
        boolean successful() {
            return Boolean.TRUE.equals(reply.get("successful"));
        }
    }

    @SuppressWarnings("unchecked")
    private Handshake handshake(String transport, String target, List<String> headers) throws Exception {
        if (transport.equals("websocket")) {
            try (RawWebSocket socket = RawWebSocket.open(server.port(), target, headers)) {
                InetSocketAddress client = (InetSocketAddress) socket.socket().getLocalSocketAddress();
                socket.sendText(HANDSHAKE);
                RawWebSocket.Frame frame = socket.read();
                List<Map<String, Object>> replies = (List<Map<String, Object>>) JSON.parse(frame.payload());
                return new Handshake(RawClient.reply(replies, "/meta/handshake"), client);
            }
        }
        try (RawHttp http = RawHttp.connect(server.port())) {
            InetSocketAddress client = (InetSocketAddress) http.socket().getLocalSocketAddress();
            List<String> all = new ArrayList<>(headers);
            all.add("Content-Type: application/json");
            http.write(RawHttp.request("POST", target, all, HANDSHAKE.getBytes(StandardCharsets.UTF_8)));
            RawHttp.Response response = http.readResponse();
            assertEquals(200, response.status(), response.text());
            List<Map<String, Object>> replies = (List<Map<String, Object>>) JSON.parse(response.body());
            return new Handshake(RawClient.reply(replies, "/meta/handshake"), client);
        }
    }

    private static void assertDenied(Handshake handshake) {
        assertFalse(handshake.successful(), handshake.reply()::toString);
        assertEquals("403::handshake_denied", handshake.reply().get("error"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"long-polling", "websocket"})
    void aBearerTokenInAHeaderAuthenticatesTheHandshake(String transport) throws Exception {
        start(context -> "Bearer s3cret".equals(context.getHeader("authorization")));

        assertTrue(handshake(transport, "/cometd", List.of("Authorization: Bearer s3cret")).successful());
        assertDenied(handshake(transport, "/cometd", List.of("Authorization: Bearer wrong")));
        assertDenied(handshake(transport, "/cometd", List.of()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"long-polling", "websocket"})
    void aTokenInACookieAuthenticatesTheHandshake(String transport) throws Exception {
        start(context -> "s3cret".equals(context.getCookie("token")));

        assertTrue(handshake(transport, "/cometd", List.of("Cookie: theme=dark; token=s3cret")).successful());
        assertDenied(handshake(transport, "/cometd", List.of("Cookie: token=wrong")));
        assertDenied(handshake(transport, "/cometd", List.of("Authorization: s3cret")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"long-polling", "websocket"})
    void anAddressAllowListAdmitsOnlyListedPeers(String transport) throws Exception {
        Set<String> allowed = java.util.concurrent.ConcurrentHashMap.newKeySet();
        start(context -> allowed.contains(context.getRemoteAddress().getAddress().getHostAddress()));

        allowed.add("10.0.0.1");
        assertDenied(handshake(transport, "/cometd", List.of()));
        allowed.add("127.0.0.1");
        assertTrue(handshake(transport, "/cometd", List.of()).successful());
    }

    @ParameterizedTest
    @ValueSource(strings = {"long-polling", "websocket"})
    void aSessionListenerReadsTheContextOfTheHandshakeFromTheServer(String transport) throws Exception {
        start(context -> true);

        Handshake handshake = handshake(transport, "/cometd/handshake?app=chat&app=lobby",
                List.of("X-Trace: one", "X-Trace: two", "User-Agent: context-test", "Accept-Encoding: gzip, deflate, br",
                        "Accept-Language: en-GB,en;q=0.9", "Cache-Control: no-cache", "Pragma: no-cache"));

        assertTrue(handshake.successful(), handshake.reply()::toString);
        BayeuxContext context = added.poll(10, TimeUnit.SECONDS);
        assertNotNull(context, "sessionAdded saw no context on its thread");
        assertEquals(handshake.client(), context.getRemoteAddress(), "the remote address is the client's socket");
        assertEquals(server.port(), context.getLocalAddress().getPort());
        assertEquals(List.of("one", "two"), context.getHeaderValues("x-trace"));
        assertEquals("context-test", context.getHeader("User-Agent"));
        assertEquals(List.of(), context.getHeaderValues("X-Absent"));
        assertEquals("gzip, deflate, br", context.getHeader("accept-encoding"));
        assertEquals("en-GB,en;q=0.9", context.getHeader("Accept-Language"));
        assertEquals("no-cache", context.getHeader("Pragma"));
        assertTrue(context.getHeader("HOST").startsWith("127.0.0.1"), context.getHeader("HOST"));
        assertEquals(List.of(context.getHeader("HOST")), context.getHeaderValues("host"));
        if (transport.equals("websocket")) {
            assertEquals("websocket", context.getHeader("Upgrade").toLowerCase(Locale.ROOT));
            assertEquals("13", context.getHeader("sec-websocket-version"));
            assertNull(context.getHeader("Sec-WebSocket-Key"), "the handshake's nonce is not kept");
        }
        assertEquals("chat", context.getParameter("app"));
        assertEquals(List.of("chat", "lobby"), context.getParameterValues("app"));
        assertEquals("http://127.0.0.1/cometd/handshake?app=chat&app=lobby", context.getURL());
        assertEquals("/cometd", context.getContextPath());
        assertEquals("HTTP/1.1", context.getProtocol());
        assertFalse(context.isSecure());
        assertEquals(transport, context.getTransportName());
    }

    @Test
    void aHandshakeOverTlsIsSecure() throws Exception {
        start(NettyBayeuxServer.builder().tls(TlsConfig.selfSigned()), context -> true);
        SSLContext trustAll = TrustAll.sslContext();
        try (HttpClient http = HttpClient.newBuilder().sslContext(trustAll).connectTimeout(Duration.ofSeconds(5)).build()) {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(server.uri()).timeout(Duration.ofSeconds(10))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(HANDSHAKE)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode(), response.body());
        }

        BayeuxContext context = added.poll(10, TimeUnit.SECONDS);
        assertNotNull(context);
        assertTrue(context.isSecure());
        assertTrue(context.getURL().startsWith("https://"), context.getURL());
    }
}
