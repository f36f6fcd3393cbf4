package io.bayeux.transport;

import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerSession;
import io.bayeux.common.json.JacksonJsonCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A session made with a browser cookie is usable only with that cookie: whoever learns its
 * clientId and comes without the cookie, or with another browser's, over long-polling,
 * callback-polling or WebSocket, is told the session is unknown and changes nothing of it.
 */
class SessionBrowserBindingIT {
    private static final JacksonJsonCodec JSON = new JacksonJsonCodec();
    private static final String OTHER_BROWSER = "fedcba9876543210fedcba9876543210";
    private static final String VICTIM_BROWSER = "0123456789abcdef0123456789abcdef";
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<Object> publishedOnNews = new CopyOnWriteArrayList<>();
    private NettyBayeuxServer server;

    @BeforeEach
    void start() {
        server = NettyBayeuxServer.builder().port(0).jsonp(true).build().start();
        server.bayeux().createChannelIfAbsent("/news", channel -> channel.addListener(
                (ServerChannel.MessageListener) (from, ch, message) -> publishedOnNews.add(message.getData())));
    }

    @AfterEach
    void stop() {
        http.shutdownNow();
        server.stop();
    }

    enum Transport { LONG_POLLING, CALLBACK_POLLING, WEBSOCKET }

    enum Attack {
        CONNECT("/meta/connect", "\"connectionType\":\"long-polling\""),
        PUBLISH("/news", "\"data\":\"forged\""),
        SUBSCRIBE("/meta/subscribe", "\"subscription\":\"/secret\""),
        UNSUBSCRIBE("/meta/unsubscribe", "\"subscription\":\"/news\""),
        DISCONNECT("/meta/disconnect", null);

        final String channel;
        final String fields;

        Attack(String channel, String fields) {
            this.channel = channel;
            this.fields = fields;
        }

        String json(String clientId) {
            return "[{\"channel\":\"" + channel + "\",\"id\":\"66\",\"clientId\":\"" + clientId + "\""
                    + (fields == null ? "" : "," + fields) + "}]";
        }
    }

    static Stream<Arguments> attacks() {
        List<Arguments> all = new ArrayList<>();
        for (Transport transport : Transport.values()) {
            for (String cookie : new String[]{null, OTHER_BROWSER}) {
                for (Attack attack : Attack.values()) {
                    all.add(Arguments.of(transport, cookie == null ? "no cookie" : "another browser's cookie", cookie, attack));
                }
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{3} over {0} with {1} is refused")
    @MethodSource("attacks")
    void aStolenClientIdIsRefusedAndTheVictimKeepsItsSession(Transport transport, String label, String cookie, Attack attack) throws Exception {
        HttpResponse<String> handshake = post(handshakeJson("long-polling"), null);
        String victim = (String) reply(parse(handshake.body()), "/meta/handshake").get("clientId");
        String victimCookie = setCookie(handshake.headers().allValues("Set-Cookie"));
        victimReceivesAQueuedMessage(victim, victimCookie, attack, transport, cookie);
    }

    @ParameterizedTest(name = "{3} over {0} with {1} is refused a session whose browser sent its cookie")
    @MethodSource("attacks")
    void aSessionMadeWithTheBrowsersOwnCookieIsRefusedToOthers(Transport transport, String label, String cookie, Attack attack) throws Exception {
        HttpResponse<String> handshake = post(handshakeJson("long-polling"), VICTIM_BROWSER);
        assertTrue(handshake.headers().allValues("Set-Cookie").isEmpty(), handshake.headers().toString());
        String victim = (String) reply(parse(handshake.body()), "/meta/handshake").get("clientId");
        victimReceivesAQueuedMessage(victim, VICTIM_BROWSER, attack, transport, cookie);
    }

    private void victimReceivesAQueuedMessage(String victim, String victimCookie, Attack attack, Transport transport, String cookie) throws Exception {
        assertEquals(true, reply(postJson(connectJson(victim), victimCookie), "/meta/connect").get("successful"));
        assertEquals(true, reply(postJson(subscribeJson(victim, "/news"), victimCookie), "/meta/subscribe").get("successful"));
        String publisher = (String) reply(postJson(handshakeJson("long-polling"), OTHER_BROWSER.replace('f', 'e')), "/meta/handshake").get("clientId");
        assertEquals(true, reply(postJson("[{\"channel\":\"/news\",\"data\":\"flash\",\"clientId\":\"" + publisher + "\"}]",
                OTHER_BROWSER.replace('f', 'e')), "/news").get("successful"));

        Map<String, Object> refused = reply(attack(transport, cookie, attack.json(victim)), attack.channel);
        assertRefused(refused);

        ServerSession session = server.bayeux().getSession(victim);
        assertNotNull(session, "the victim's session is still there");
        assertEquals(Set.of("/news"), channelIds(session), "the victim's subscriptions are unchanged");
        assertEquals(List.of("flash"), publishedOnNews, "nothing was published in the victim's name");
        List<Map<String, Object>> messages = postJson(connectJson(victim), victimCookie);
        assertEquals(2, messages.size(), messages.toString());
        assertEquals("/news", messages.get(0).get("channel"), messages.toString());
        assertEquals("flash", messages.get(0).get("data"), messages.toString());
        assertEquals(true, reply(messages, "/meta/connect").get("successful"), messages.toString());
    }

    @ParameterizedTest(name = "over {0}")
    @EnumSource(Transport.class)
    void theReasonASessionWasRemovedForIsToldToItsOwnBrowserNotToAnotherThatNamesIt(Transport transport) throws Exception {
        HttpResponse<String> handshake = post(handshakeJson("long-polling"), VICTIM_BROWSER);
        String victim = (String) reply(parse(handshake.body()), "/meta/handshake").get("clientId");
        assertEquals(true, reply(postJson(connectJson(victim), VICTIM_BROWSER), "/meta/connect").get("successful"));
        // No connect is held: the reason waits for the client's next message.
        server.bayeux().getSession(victim).disconnect("402:token_expired:session_expired");
        assertEquals(null, server.bayeux().getSession(victim));

        assertRefused(reply(attack(transport, null, Attack.CONNECT.json(victim)), "/meta/connect"));
        assertRefused(reply(attack(transport, OTHER_BROWSER, Attack.CONNECT.json(victim)), "/meta/connect"));

        Map<String, Object> told = reply(postJson(connectJson(victim), VICTIM_BROWSER), "/meta/connect");
        assertEquals(false, told.get("successful"), told.toString());
        assertEquals("402:token_expired:session_expired", told.get("error"), "the owner is told why, once: " + told);
        assertRefused(reply(postJson(connectJson(victim), VICTIM_BROWSER), "/meta/connect"));
    }

    @Test
    void aWebSocketSessionWithoutCookiesWorksOnItsConnectionAndNowhereElse() throws Exception {
        try (RawWebSocket victim = RawWebSocket.open(server.port(), "/cometd")) {
            assertNotNull(setCookie(victim.upgradeHeaders().getOrDefault("set-cookie", List.of())), "the 101 sets the browser cookie");
            victim.sendText(handshakeJson("websocket"));
            String clientId = (String) replyOn(victim, "/meta/handshake").get("clientId");
            victim.sendText("[{\"channel\":\"/meta/connect\",\"connectionType\":\"websocket\",\"advice\":{\"timeout\":0},\"id\":\"2\",\"clientId\":\"" + clientId + "\"}]");
            assertEquals(true, replyOn(victim, "/meta/connect").get("successful"));
            victim.sendText(subscribeJson(clientId, "/news"));
            assertEquals(true, replyOn(victim, "/meta/subscribe").get("successful"));

            String connect = "[{\"channel\":\"/meta/connect\",\"connectionType\":\"websocket\",\"id\":\"3\",\"clientId\":\"" + clientId + "\"}]";
            assertRefused(reply(webSocket(null, connect), "/meta/connect"));
            assertRefused(reply(webSocket(OTHER_BROWSER, connect), "/meta/connect"));
            assertRefused(reply(postJson(connectJson(clientId), null), "/meta/connect"));
            assertRefused(reply(postJson(Attack.UNSUBSCRIBE.json(clientId), null), "/meta/unsubscribe"));

            String publisher = (String) reply(postJson(handshakeJson("long-polling"), OTHER_BROWSER), "/meta/handshake").get("clientId");
            postJson("[{\"channel\":\"/news\",\"data\":\"flash\",\"clientId\":\"" + publisher + "\"}]", OTHER_BROWSER);
            Map<String, Object> delivery = replyOrDelivery(victim, "/news");
            assertEquals("flash", delivery.get("data"), "the victim's own connection still receives");
        }
    }

    @Test
    void aCookieLessWebSocketOpenedBeforeTheHandshakeAdoptsTheSessionOnceAsFayesClientNeeds() throws Exception {
        // Faye opens its WebSocket in parallel with its long-polling handshake: the socket has no cookie.
        try (RawWebSocket early = RawWebSocket.open(server.port(), "/cometd")) {
            String earlyCookie = setCookie(early.upgradeHeaders().getOrDefault("set-cookie", List.of()));
            assertNotNull(earlyCookie, "the 101 sets a cookie");
            HttpResponse<String> handshake = post(handshakeJson("long-polling"), null);
            String clientId = (String) reply(parse(handshake.body()), "/meta/handshake").get("clientId");
            String cookie = setCookie(handshake.headers().allValues("Set-Cookie"));
            assertEquals(true, reply(postJson(connectJson(clientId), cookie), "/meta/connect").get("successful"), "the owner's cookie");
            // Faye keeps whichever Set-Cookie came last: the 101's may replace the handshake's.
            assertEquals(true, reply(postJson(subscribeJson(clientId, "/news"), earlyCookie), "/meta/subscribe").get("successful"),
                    "the early socket's cookie speaks for that socket");

            String connect = "[{\"channel\":\"/meta/connect\",\"connectionType\":\"websocket\",\"advice\":{\"timeout\":0},\"id\":\"5\",\"clientId\":\"" + clientId + "\"}]";
            early.sendText(connect);
            assertEquals(true, replyOn(early, "/meta/connect").get("successful"), "the early socket adopts the session");

            assertRefused(reply(webSocket(null, connect), "/meta/connect"));
            assertRefused(reply(webSocket(OTHER_BROWSER, connect), "/meta/connect"));
            assertRefused(reply(postJson(connectJson(clientId), null), "/meta/connect"));
            assertEquals(Set.of("/news"), channelIds(server.bayeux().getSession(clientId)));
        }
    }

    @Test
    void aCookieLessSocketConnectedBeforeTheHandshakeAdoptsTheSessionThoughItsUpgradeIsReadAfterTheOwnersConnect() throws Exception {
        // Faye connects its socket before it sends its handshake; on a busy machine (client or
        // server) the upgrade request may be read after the owner's first connect over HTTP.
        try (RawHttp early = RawHttp.connect(server.port())) {
            HttpResponse<String> handshake = post(handshakeJson("long-polling"), null);
            String clientId = (String) reply(parse(handshake.body()), "/meta/handshake").get("clientId");
            String cookie = setCookie(handshake.headers().allValues("Set-Cookie"));
            assertEquals(true, reply(postJson(connectJson(clientId), cookie), "/meta/connect").get("successful"), "the owner's cookie");

            try (RawWebSocket socket = RawWebSocket.upgrade(early, "/cometd", List.of())) {
                socket.sendText(subscribeJson(clientId, "/news"));
                assertEquals(true, replyOn(socket, "/meta/subscribe").get("successful"), "the early socket adopts the session");
                String connect = "[{\"channel\":\"/meta/connect\",\"connectionType\":\"websocket\",\"advice\":{\"timeout\":0},\"id\":\"5\",\"clientId\":\"" + clientId + "\"}]";
                assertRefused(reply(webSocket(null, connect), "/meta/connect"));
                assertRefused(reply(postJson(connectJson(clientId), null), "/meta/connect"));
                assertEquals(Set.of("/news"), channelIds(server.bayeux().getSession(clientId)));
            }
        }
    }

    @Test
    void aCookieLessWebSocketOpenedAfterTheOwnerUsedItsCookieCannotAdopt() throws Exception {
        // Many times: the socket is often opened within the millisecond of the server's clock in
        // which the owner's first use was stamped, and must still count as opened after it.
        for (int round = 0; round < 200; round++) {
            HttpResponse<String> handshake = post(handshakeJson("long-polling"), null);
            String clientId = (String) reply(parse(handshake.body()), "/meta/handshake").get("clientId");
            String cookie = setCookie(handshake.headers().allValues("Set-Cookie"));
            assertEquals(true, reply(postJson(connectJson(clientId), cookie), "/meta/connect").get("successful"));
            String connect = "[{\"channel\":\"/meta/connect\",\"connectionType\":\"websocket\",\"advice\":{\"timeout\":0},\"id\":\"5\",\"clientId\":\"" + clientId + "\"}]";
            assertRefused(reply(webSocket(null, connect), "/meta/connect"));
        }
    }

    // --- the attacker

    private List<Map<String, Object>> attack(Transport transport, String cookie, String json) throws Exception {
        return switch (transport) {
            case LONG_POLLING -> {
                long start = System.nanoTime();
                List<Map<String, Object>> replies = postJson(json, cookie);
                long millis = (System.nanoTime() - start) / 1_000_000;
                assertTrue(millis < 10_000, "answered at once, not held: " + millis + " ms");
                yield replies;
            }
            case CALLBACK_POLLING -> {
                URI uri = URI.create(server.uri() + "?jsonp=cb&message=" + URLEncoder.encode(json, StandardCharsets.UTF_8));
                HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET();
                if (cookie != null) {
                    request.header("Cookie", "BAYEUX_BROWSER=" + cookie);
                }
                String body = http.send(request.build(), HttpResponse.BodyHandlers.ofString()).body();
                assertTrue(body.startsWith("cb(") && body.endsWith(");"), body);
                yield parse(body.substring(3, body.length() - 2));
            }
            case WEBSOCKET -> webSocket(cookie, json);
        };
    }

    private List<Map<String, Object>> webSocket(String cookie, String json) throws Exception {
        try (RawWebSocket socket = RawWebSocket.open(server.port(), "/cometd",
                cookie == null ? List.of() : List.of("Cookie: BAYEUX_BROWSER=" + cookie))) {
            socket.sendText(json);
            return parse(socket.read().text());
        }
    }

    private static void assertRefused(Map<String, Object> reply) {
        assertEquals(false, reply.get("successful"), reply.toString());
        assertEquals("402::session_unknown", reply.get("error"), reply.toString());
        @SuppressWarnings("unchecked")
        Map<String, Object> advice = (Map<String, Object>) reply.get("advice");
        assertNotNull(advice, reply.toString());
        assertEquals("handshake", advice.get("reconnect"), reply.toString());
        assertEquals(0, ((Number) advice.get("interval")).intValue(), reply.toString());
    }

    // --- helpers

    private static Set<String> channelIds(ServerSession session) {
        Set<String> ids = new HashSet<>();
        session.getSubscriptions().forEach(channel -> ids.add(channel.getId()));
        return ids;
    }

    private static String handshakeJson(String transport) {
        return "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"id\":\"1\",\"supportedConnectionTypes\":[\"" + transport + "\"]}]";
    }

    private static String connectJson(String clientId) {
        return "[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\"" + clientId + "\"}]";
    }

    private static String subscribeJson(String clientId, String channel) {
        return "[{\"channel\":\"/meta/subscribe\",\"subscription\":\"" + channel + "\",\"id\":\"4\",\"clientId\":\"" + clientId + "\"}]";
    }

    /** The browser id of a BAYEUX_BROWSER Set-Cookie among these, or null. */
    static String setCookie(List<String> setCookies) {
        for (String header : setCookies) {
            if (header.startsWith("BAYEUX_BROWSER=")) {
                int end = header.indexOf(';');
                return header.substring("BAYEUX_BROWSER=".length(), end < 0 ? header.length() : end);
            }
        }
        return null;
    }

    private List<Map<String, Object>> postJson(String json, String cookie) throws Exception {
        HttpResponse<String> response = post(json, cookie);
        assertEquals(200, response.statusCode(), response.body());
        return parse(response.body());
    }

    private HttpResponse<String> post(String json, String cookie) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(server.uri()).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json;charset=UTF-8")
                .POST(HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8));
        if (cookie != null) {
            request.header("Cookie", "BAYEUX_BROWSER=" + cookie);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static Map<String, Object> replyOn(RawWebSocket socket, String channel) throws Exception {
        return replyOrDelivery(socket, channel);
    }

    /** The first message on {@code channel} in the next frames (at most 10). */
    private static Map<String, Object> replyOrDelivery(RawWebSocket socket, String channel) throws Exception {
        for (int i = 0; i < 10; i++) {
            for (Map<String, Object> message : parse(socket.read().text())) {
                if (channel.equals(message.get("channel"))) {
                    return message;
                }
            }
        }
        throw new AssertionError("No message on " + channel + " in 10 frames");
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> parse(String json) {
        try {
            return (List<Map<String, Object>>) JSON.parse(json.getBytes(StandardCharsets.UTF_8));
        } catch (Exception x) {
            throw new AssertionError("Not a JSON array of messages: " + json, x);
        }
    }

    private static Map<String, Object> reply(List<Map<String, Object>> messages, String channel) {
        return RawClient.reply(messages, channel);
    }
}
