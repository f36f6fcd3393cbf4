package io.bayeux.transport;

import io.bayeux.common.json.JacksonJsonCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The browser cookie's options: its name, {@code SameSite} (default {@code Lax}), {@code Secure}
 * over TLS, always {@code HttpOnly} for {@code Path=/}; the same on the long-polling responses
 * and on the WebSocket upgrade's 101.
 */
class BrowserCookieIT {
    private static final JacksonJsonCodec JSON = new JacksonJsonCodec();
    private static final String HANDSHAKE = "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"long-polling\"]}]";
    private NettyBayeuxServer server;
    private HttpClient http;

    @AfterEach
    void stop() {
        if (http != null) {
            http.shutdownNow();
        }
        if (server != null) {
            server.stop();
        }
    }

    private void start(NettyBayeuxServer.Builder builder) throws Exception {
        server = builder.port(0).build().start();
        SSLContext trustAll = TrustAll.sslContext();
        http = HttpClient.newBuilder().sslContext(trustAll).connectTimeout(Duration.ofSeconds(5)).build();
    }

    @Test
    void byDefaultTheCookieIsBayeuxBrowserHttpOnlyLaxForTheWholeSiteAndNotSecure() throws Exception {
        start(NettyBayeuxServer.builder());
        for (String cookie : List.of(longPollingCookie(), upgradeCookie(false))) {
            List<String> attributes = attributes(cookie);
            assertTrue(cookie.matches("BAYEUX_BROWSER=[0-9a-f]{32};.*"), cookie);
            assertTrue(attributes.contains("path=/"), cookie);
            assertTrue(attributes.contains("httponly"), cookie);
            assertTrue(attributes.contains("samesite=lax"), cookie);
            assertFalse(attributes.contains("secure"), cookie);
        }
    }

    @Test
    void sameSiteIsConfigurable() throws Exception {
        start(NettyBayeuxServer.builder().browserCookieSameSite(SameSite.STRICT));
        assertTrue(attributes(longPollingCookie()).contains("samesite=strict"));
        assertTrue(attributes(upgradeCookie(false)).contains("samesite=strict"));
        server.stop();
        http.shutdownNow();
        start(NettyBayeuxServer.builder().browserCookieSameSite(SameSite.NONE).tls(TlsConfig.selfSigned()));
        List<String> attributes = attributes(longPollingCookie());
        assertTrue(attributes.contains("samesite=none") && attributes.contains("secure"), attributes.toString());
    }

    @Test
    void overTlsTheCookieIsSecureOnBothTransports() throws Exception {
        start(NettyBayeuxServer.builder().tls(TlsConfig.selfSigned()));
        assertEquals("https", server.uri().getScheme());
        for (String cookie : List.of(longPollingCookie(), upgradeCookie(true))) {
            List<String> attributes = attributes(cookie);
            assertTrue(attributes.contains("secure"), cookie);
            assertTrue(attributes.contains("httponly") && attributes.contains("samesite=lax"), cookie);
        }
    }

    @Test
    void theCookieNameIsConfigurableAndOnlyThatCookieNamesTheBrowser() throws Exception {
        start(NettyBayeuxServer.builder().browserCookieName("APP_BROWSER"));
        HttpResponse<String> handshake = post(HANDSHAKE, null);
        String cookie = handshake.headers().allValues("Set-Cookie").get(0);
        assertTrue(cookie.matches("APP_BROWSER=[0-9a-f]{32};.*"), cookie);
        String browser = cookie.substring("APP_BROWSER=".length(), cookie.indexOf(';'));
        String clientId = (String) RawClient.reply(parse(handshake.body()), "/meta/handshake").get("clientId");
        String connect = "[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"advice\":{\"timeout\":0},\"clientId\":\"" + clientId + "\"}]";

        Map<String, Object> wrongName = RawClient.reply(parse(post(connect, "BAYEUX_BROWSER=" + browser).body()), "/meta/connect");
        assertEquals("402::session_unknown", wrongName.get("error"), wrongName.toString());
        Map<String, Object> rightName = RawClient.reply(parse(post(connect, "APP_BROWSER=" + browser).body()), "/meta/connect");
        assertEquals(true, rightName.get("successful"), rightName.toString());
        assertTrue(post(HANDSHAKE, "APP_BROWSER=" + browser).headers().allValues("Set-Cookie").isEmpty(), "no new cookie for a known browser");
    }

    @Test
    void aNameThatIsNotACookieTokenIsRefused() {
        for (String bad : new String[]{"", "A B", "A;B", "A=B", "caf\u00e9"}) {
            IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> NettyBayeuxServer.builder().browserCookieName(bad));
            assertTrue(x.getMessage().contains(bad), x.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> NettyBayeuxServer.builder().browserCookieName(null));
        assertThrows(NullPointerException.class, () -> NettyBayeuxServer.builder().browserCookieSameSite(null));
    }

    // --- helpers

    private String longPollingCookie() throws Exception {
        HttpResponse<String> response = post(HANDSHAKE, null);
        assertEquals(200, response.statusCode(), response.body());
        List<String> cookies = response.headers().allValues("Set-Cookie");
        assertEquals(1, cookies.size(), cookies.toString());
        return cookies.get(0);
    }

    /** Upgrades a new connection (over TLS when asked) and returns the Set-Cookie of its 101. */
    private String upgradeCookie(boolean tls) throws Exception {
        Socket socket;
        if (tls) {
            SSLContext trustAll = TrustAll.sslContext();
            SSLSocket ssl = (SSLSocket) trustAll.getSocketFactory().createSocket();
            socket = ssl;
        } else {
            socket = new Socket();
        }
        try (socket) {
            socket.connect(new InetSocketAddress("127.0.0.1", server.port()), 5_000);
            socket.setSoTimeout(5_000);
            byte[] key = new byte[16];
            new SecureRandom().nextBytes(key);
            String request = "GET /cometd HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                    + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: " + Base64.getEncoder().encodeToString(key) + "\r\n\r\n";
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            String status = RawHttp.readLine(in);
            assertTrue(status.contains(" 101 "), status);
            List<String> cookies = RawHttp.readHeaders(in).getOrDefault("set-cookie", List.of());
            assertEquals(1, cookies.size(), cookies.toString());
            return cookies.get(0);
        } catch (IOException x) {
            throw new AssertionError("Upgrade failed", x);
        }
    }

    private static List<String> attributes(String setCookie) {
        return Arrays.stream(setCookie.split(";")).skip(1).map(a -> a.trim().toLowerCase(Locale.ROOT)).toList();
    }

    private HttpResponse<String> post(String body, String cookie) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(server.uri()).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json;charset=UTF-8")
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        if (cookie != null) {
            request.header("Cookie", cookie);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> parse(String json) throws Exception {
        return (List<Map<String, Object>>) JSON.parse(json.getBytes(StandardCharsets.UTF_8));
    }
}
