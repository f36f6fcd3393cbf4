package io.bayeux.transport;

import io.bayeux.common.json.JacksonJsonCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Long-polling over real HTTP: the held connect, browser tabs, form and JSONP bodies, the browser cookie. */
class LongPollingIT {
    private static final JacksonJsonCodec JSON = new JacksonJsonCodec();
    private static final String HANDSHAKE = "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"long-polling\",\"callback-polling\"]}]";
    private static final String BROWSER_A = "0123456789abcdef0123456789abcdef";
    private static final String BROWSER_B = "fedcba9876543210fedcba9876543210";
    private NettyBayeuxServer server;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @AfterEach
    void stop() {
        http.shutdownNow();
        if (server != null) {
            server.stop();
        }
    }

    private void start(boolean jsonp) {
        server = NettyBayeuxServer.builder().port(0).jsonp(jsonp).build().start();
    }

    @Test
    void aHeldConnectCarriesAMessagePublishedDuringTheHoldBeforeItsReply() throws Exception {
        start(false);
        String clientId = handshake(BROWSER_A);
        connect(clientId, BROWSER_A);
        assertEquals(true, reply(post(subscribe(clientId, "/news"), BROWSER_A), "/meta/subscribe").get("successful"));

        CompletableFuture<List<Map<String, Object>>> held = postAsync(connectJson(clientId), BROWSER_A);
        assertThrows(TimeoutException.class, () -> held.get(500, TimeUnit.MILLISECONDS), "the connect is held");

        String publisher = handshake(BROWSER_B);
        assertEquals(true, reply(post("[{\"channel\":\"/news\",\"data\":\"flash\",\"clientId\":\"" + publisher + "\"}]", BROWSER_B), "/news").get("successful"));

        List<Map<String, Object>> messages = held.get(2, TimeUnit.SECONDS);
        assertEquals(2, messages.size(), messages.toString());
        assertEquals("/news", messages.get(0).get("channel"));
        assertEquals("flash", messages.get(0).get("data"));
        assertEquals("/meta/connect", messages.get(1).get("channel"));
        assertEquals(true, messages.get(1).get("successful"));
    }

    @Test
    void aHeldConnectIsAnsweredWhenItsHoldRunsOutAndTheSessionLivesOn() throws Exception {
        // The hold is a timer on the connection's event loop: it must fire, and answer the connect.
        server = NettyBayeuxServer.builder().port(0)
                .bayeuxConfig(io.bayeux.server.BayeuxServerConfig.builder().timeout(Duration.ofMillis(400)).build())
                .build().start();
        String clientId = handshake(BROWSER_A);
        connect(clientId, BROWSER_A);
        for (int i = 0; i < 3; i++) {
            long started = System.nanoTime();
            List<Map<String, Object>> messages = postAsync(connectJson(clientId), BROWSER_A).get(5, TimeUnit.SECONDS);
            long heldMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertEquals(true, reply(messages, "/meta/connect").get("successful"), messages.toString());
            assertTrue(heldMillis >= 300, "held for its timeout, not answered at once: " + heldMillis + " ms");
        }
        assertNotNull(server.bayeux().getSession(clientId), "the session lives on");
    }

    @Test
    void aSecondTabOfTheSameBrowserIsAnsweredAtOnceWithTheMultipleClientsAdvice() throws Exception {
        start(false);
        String first = handshake(BROWSER_A);
        connect(first, BROWSER_A);
        // The first tab's next connect must be the held one: the second tab's is answered only if it
        // comes later. Half a second without a reply was no proof that it had reached the server on a
        // loaded machine; the server's extensions seeing it is (it is held on that thread right after).
        java.util.concurrent.CountDownLatch firstArrived = new java.util.concurrent.CountDownLatch(1);
        server.bayeux().addExtension(new io.bayeux.api.server.BayeuxServer.Extension() {
            @Override
            public boolean rcvMeta(io.bayeux.api.server.ServerSession from, io.bayeux.api.server.ServerMessage.Mutable message) {
                if (from != null && first.equals(from.getId()) && "/meta/connect".equals(message.getChannel())) {
                    firstArrived.countDown();
                }
                return true;
            }
        });
        CompletableFuture<List<Map<String, Object>>> held = postAsync(connectJson(first), BROWSER_A);
        assertTrue(firstArrived.await(10, TimeUnit.SECONDS), "the first tab's connect reached the server");
        assertThrows(TimeoutException.class, () -> held.get(500, TimeUnit.MILLISECONDS), "the first tab's connect is held");

        String second = handshake(BROWSER_A);
        connect(second, BROWSER_A);
        long start = System.nanoTime();
        Map<String, Object> reply = reply(postAsync(connectJson(second), BROWSER_A).get(10, TimeUnit.SECONDS), "/meta/connect");
        long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
        // At once, not after the 20 s hold: the bound leaves a busy machine its seconds.
        assertTrue(elapsedMillis < 5_000, "answered after " + elapsedMillis + " ms");
        assertEquals(true, reply.get("successful"), reply.toString());
        @SuppressWarnings("unchecked")
        Map<String, Object> advice = (Map<String, Object>) reply.get("advice");
        assertNotNull(advice, reply.toString());
        assertEquals(true, advice.get("multiple-clients"), advice.toString());
        assertEquals("retry", advice.get("reconnect"), advice.toString());
        assertEquals(2000, ((Number) advice.get("interval")).intValue(), advice.toString());
        assertTrue(!held.isDone(), "the first tab's connect is still held");
    }

    @Test
    void aFormEncodedMessageParameterIsAccepted() throws Exception {
        start(false);
        HttpRequest request = HttpRequest.newBuilder(server.uri()).timeout(Duration.ofSeconds(5))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("message=" + URLEncoder.encode(HANDSHAKE, StandardCharsets.UTF_8))).build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        Map<String, Object> reply = reply(parse(response.body()), "/meta/handshake");
        assertEquals(true, reply.get("successful"));
        assertNotNull(server.bayeux().getSession((String) reply.get("clientId")));
    }

    @Test
    void jsonpAnswersWithTheCallbackWrappingTheReplies() throws Exception {
        start(true);
        HttpResponse<String> response = jsonp("cb");
        assertEquals(200, response.statusCode(), response.body());
        assertTrue(response.headers().firstValue("Content-Type").orElse("").startsWith("text/javascript"), response.headers().toString());
        String body = response.body();
        assertTrue(body.startsWith("cb([") && body.endsWith("]);"), body);
        Map<String, Object> reply = reply(parse(body.substring(3, body.length() - 2)), "/meta/handshake");
        assertEquals(true, reply.get("successful"));
        assertTrue(((List<?>) reply.get("supportedConnectionTypes")).contains("callback-polling"), reply.toString());
    }

    @Test
    void jsonpIsNotAllowedWhenOff() throws Exception {
        start(false);
        HttpResponse<String> response = jsonp("cb");
        assertEquals(405, response.statusCode(), response.body());
        assertTrue(response.headers().firstValue("Allow").isPresent());
    }

    @Test
    void aClientIdUsedFromAnotherBrowserIsAnUnknownSession() throws Exception {
        start(false);
        String clientId = handshake(BROWSER_A);
        Map<String, Object> stolen = reply(post(connectJson(clientId), BROWSER_B), "/meta/connect");
        assertEquals(false, stolen.get("successful"), stolen.toString());
        assertEquals("402::session_unknown", stolen.get("error"));
        Map<String, Object> own = reply(post(connectJson(clientId), BROWSER_A), "/meta/connect");
        assertEquals(true, own.get("successful"), own.toString());
    }

    @Test
    void aSessionMadeWithoutACookieBelongsToTheCookieItsHandshakeResponseSet() throws Exception {
        start(false);
        HttpResponse<String> response = send(HANDSHAKE, null);
        String clientId = (String) reply(parse(response.body()), "/meta/handshake").get("clientId");
        String cookie = response.headers().allValues("Set-Cookie").stream().filter(c -> c.startsWith("BAYEUX_BROWSER=")).findFirst()
                .orElseThrow();
        String browser = cookie.substring("BAYEUX_BROWSER=".length(), "BAYEUX_BROWSER=".length() + 32);

        Map<String, Object> stolen = reply(post(connectJson(clientId), BROWSER_B), "/meta/connect");
        assertEquals("402::session_unknown", stolen.get("error"), "another browser cannot use the clientId");
        assertEquals(true, reply(post(connectJson(clientId), browser), "/meta/connect").get("successful"));
        // A request without the cookie is refused too, as CometD does: long-polling clients keep cookies.
        String notHeld = connectJson(clientId).replace("\"clientId\"", "\"advice\":{\"timeout\":0},\"clientId\"");
        assertEquals("402::session_unknown", reply(post(notHeld, null), "/meta/connect").get("error"));
    }

    @Test
    void theFirstResponseToACookieLessRequestSetsAnHttpOnlyBrowserCookie() throws Exception {
        start(false);
        HttpResponse<String> response = send(HANDSHAKE, null);
        assertEquals(200, response.statusCode());
        String cookie = response.headers().allValues("Set-Cookie").stream().filter(c -> c.startsWith("BAYEUX_BROWSER=")).findFirst()
                .orElseThrow(() -> new AssertionError("No BAYEUX_BROWSER cookie in " + response.headers()));
        assertTrue(cookie.matches("BAYEUX_BROWSER=[0-9a-f]{32}(;.*)?"), cookie);
        assertTrue(cookie.toLowerCase().contains("httponly"), cookie);
        assertTrue(send(HANDSHAKE, BROWSER_A).headers().allValues("Set-Cookie").isEmpty(), "no new cookie when the browser sent one");
    }

    // --- helpers

    private HttpResponse<String> jsonp(String callback) throws Exception {
        URI uri = URI.create(server.uri() + "?jsonp=" + callback + "&message=" + URLEncoder.encode(HANDSHAKE, StandardCharsets.UTF_8));
        return http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private String handshake(String browser) throws Exception {
        Map<String, Object> reply = reply(post(HANDSHAKE, browser), "/meta/handshake");
        assertEquals(true, reply.get("successful"), reply.toString());
        return (String) reply.get("clientId");
    }

    private void connect(String clientId, String browser) throws Exception {
        assertEquals(true, reply(post(connectJson(clientId), browser), "/meta/connect").get("successful"));
    }

    private static String connectJson(String clientId) {
        return "[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\"" + clientId + "\"}]";
    }

    private static String subscribe(String clientId, String channel) {
        return "[{\"channel\":\"/meta/subscribe\",\"subscription\":\"" + channel + "\",\"clientId\":\"" + clientId + "\"}]";
    }

    private List<Map<String, Object>> post(String body, String browser) throws Exception {
        HttpResponse<String> response = send(body, browser);
        assertEquals(200, response.statusCode(), response.body());
        return parse(response.body());
    }

    private HttpResponse<String> send(String body, String browser) throws Exception {
        return http.send(request(body, browser), HttpResponse.BodyHandlers.ofString());
    }

    private CompletableFuture<List<Map<String, Object>>> postAsync(String body, String browser) {
        return http.sendAsync(request(body, browser), HttpResponse.BodyHandlers.ofString()).thenApply(response -> {
            assertEquals(200, response.statusCode(), response.body());
            return parse(response.body());
        });
    }

    private HttpRequest request(String body, String browser) {
        HttpRequest.Builder request = HttpRequest.newBuilder(server.uri()).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json;charset=UTF-8")
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        if (browser != null) {
            request.header("Cookie", "BAYEUX_BROWSER=" + browser);
        }
        return request.build();
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
