package io.bayeux.transport;

import io.bayeux.api.Channel;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.common.json.JacksonJsonCodec;
import io.bayeux.server.BayeuxServerConfig;
import io.bayeux.server.NonBlocking;
import io.bayeux.server.internal.ServerSessionImpl;
import io.bayeux.testing.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a long-polling client reads, byte for byte, on kept-alive connections: every response's
 * headers, the browser cookie once, large replies gzipped (one after the other, on several
 * connections), and many requests that arrive together all answered.
 */
class LongPollingResponsesIT {
    private static final JacksonJsonCodec JSON = new JacksonJsonCodec();
    private static final String PATH = "/cometd";
    @RegisterExtension
    final ServerPerTest server = new ServerPerTest();

    @Test
    void everyResponseOnAKeptAliveConnectionCarriesItsHeadersAndOnlyTheFirstSetsTheCookie() throws Exception {
        try (RawHttp http = RawHttp.connect(server.port())) {
            RawHttp.Response handshake = post(http, List.of(), "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"long-polling\"]}]");
            assertBayeuxHeaders(handshake);
            String cookie = handshake.header("Set-Cookie");
            assertNotNull(cookie, handshake.headers().toString());
            assertTrue(cookie.startsWith("BAYEUX_BROWSER=") && cookie.contains("Path=/") && cookie.toLowerCase(java.util.Locale.ROOT).contains("httponly"), cookie);
            String browser = cookie.substring(0, cookie.indexOf(';'));
            String clientId = (String) first(handshake).get("clientId");
            for (int i = 0; i < 5; i++) {
                // interval 0 with nothing queued and no hold: the connect with advice timeout 0 is answered at once.
                RawHttp.Response connect = post(http, List.of("Cookie: " + browser),
                        "[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"advice\":{\"timeout\":0},\"clientId\":\"" + clientId + "\"}]");
                assertBayeuxHeaders(connect);
                assertNull(connect.header("Set-Cookie"), "the cookie is set once: " + connect.headers());
                assertEquals(true, first(connect).get("successful"), connect.text());
            }
        }
    }

    /**
     * Handshakes, subscribes to {@code channel} and connects (answered at once: advice timeout 0)
     * over {@code http}: the session then gets its messages in any reply.
     *
     * @return the browser cookie ({@code name=value}) and the client id
     */
    private static String[] connectedSubscriber(RawHttp http, String channel) throws Exception {
        return connectedSubscriber(http, channel, new long[1]);
    }

    /** Also notes in {@code connectSent[0]} the {@link System#nanoTime()} just before the first connect went out. */
    private static String[] connectedSubscriber(RawHttp http, String channel, long[] connectSent) throws Exception {
        RawHttp.Response handshake = post(http, List.of(), "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"long-polling\"]}]");
        String browser = handshake.header("Set-Cookie").split(";")[0];
        String clientId = (String) first(handshake).get("clientId");
        post(http, List.of("Cookie: " + browser),
                "[{\"channel\":\"/meta/subscribe\",\"subscription\":\"" + channel + "\",\"clientId\":\"" + clientId + "\"}]");
        connectSent[0] = System.nanoTime();
        post(http, List.of("Cookie: " + browser), poll(clientId));
        return new String[] {browser, clientId};
    }

    private static String poll(String clientId) {
        return "[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"advice\":{\"timeout\":0},\"clientId\":\"" + clientId + "\"}]";
    }

    /**
     * As {@link #connectedSubscriber}, then a second connect, not held either: after a first
     * connect a client connects again at once, and until it does, the replies to its other
     * requests leave its messages to that connect; after this one they carry them.
     */
    private static String[] pollingSubscriber(RawHttp http, String channel) throws Exception {
        String[] session = connectedSubscriber(http, channel);
        post(http, List.of("Cookie: " + session[0]), poll(session[1]));
        return session;
    }

    /**
     * Makes {@code session} one that receives often, so that its connect replies gather (the
     * server gathers for a session whose recent rate would bring more than one message in a
     * gather time): connects that each find four messages queued for it alone, until one reply
     * waited half of {@code gatherMillis} or more. Notes in {@code connectSent} when the last
     * connect was sent; its reply has been read.
     */
    private void receiveOften(RawHttp http, String[] session, long gatherMillis, long[] connectSent) throws Exception {
        var serverSession = server.server().bayeux().getSession(session[1]);
        for (int round = 0; round < 20; round++) {
            for (int i = 0; i < 4; i++) {
                serverSession.deliver(null, "/often", "often", io.bayeux.api.Promise.noop());
            }
            connectSent[0] = System.nanoTime();
            post(http, List.of("Cookie: " + session[0]),
                    "[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\"" + session[1] + "\"}]");
            if (System.nanoTime() - connectSent[0] >= TimeUnit.MILLISECONDS.toNanos(gatherMillis / 2)) {
                return;
            }
        }
        throw new AssertionError("twenty connect replies with four messages each and none gathered");
    }

    /**
     * Sends a long-polling connect of {@code session} (as {@link #connectedSubscriber} returns
     * it) over {@code http} and waits until the server holds it.
     *
     * @return the connect, to send again
     */
    private String sendConnectAndAwaitItsHold(RawHttp http, String[] session) throws Exception {
        String connect = "[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\"" + session[1] + "\"}]";
        http.write(RawHttp.request("POST", PATH, List.of("Cookie: " + session[0], "Content-Type: application/json;charset=UTF-8"),
                connect.getBytes(StandardCharsets.UTF_8)));
        ServerSessionImpl serverSession = (ServerSessionImpl) server.server().bayeux().getSession(session[1]);
        Await.until(Duration.ofSeconds(10), serverSession::isConnectHeld, () -> "the connect to be held: " + serverSession);
        return connect;
    }

    @Test
    void largeRepliesAreGzippedOneAfterTheOtherOnSeveralConnections() throws Exception {
        String data = "x".repeat(3_000);
        for (int connection = 0; connection < 2; connection++) {
            try (RawHttp http = RawHttp.connect(server.port())) {
                String[] session = pollingSubscriber(http, "/big");
                String browser = session[0];
                String clientId = session[1];
                for (int i = 0; i < 3; i++) {
                    // The publisher is subscribed: the reply to its publish carries its own message, over 1 KiB.
                    RawHttp.Response reply = post(http, List.of("Cookie: " + browser, "Accept-Encoding: gzip"),
                            "[{\"channel\":\"/big\",\"data\":\"" + data + i + "\",\"clientId\":\"" + clientId + "\"}]");
                    assertBayeuxHeaders(reply);
                    assertEquals("gzip", reply.header("Content-Encoding"), reply.headers().toString());
                    byte[] json;
                    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(reply.body()))) {
                        json = in.readAllBytes();
                    }
                    List<Map<String, Object>> messages = messages(json);
                    assertEquals(2, messages.size(), new String(json, StandardCharsets.UTF_8));
                    assertEquals(data + i, messages.get(0).get("data"));
                    assertEquals(true, messages.get(1).get("successful"));
                }
            }
        }
    }

    @Test
    void withGzipOffLargeRepliesGoAsTheyAre() throws Exception {
        server.restart(builder -> builder.gzipLevel(0));
        String data = "x".repeat(3_000);
        try (RawHttp http = RawHttp.connect(server.port())) {
            String[] session = pollingSubscriber(http, "/big");
            String browser = session[0];
            String clientId = session[1];
            RawHttp.Response reply = post(http, List.of("Cookie: " + browser, "Accept-Encoding: gzip"),
                    "[{\"channel\":\"/big\",\"data\":\"" + data + "\",\"clientId\":\"" + clientId + "\"}]");
            assertBayeuxHeaders(reply);
            assertNull(reply.header("Content-Encoding"), reply.headers().toString());
            List<Map<String, Object>> messages = messages(reply.body());
            assertEquals(2, messages.size());
            assertEquals(data, messages.get(0).get("data"));
        }
    }

    @Test
    void afterTheFirstConnectEvenAskedWithATimeoutOfZeroTheRepliesToOtherRequestsLeaveTheMessagesToTheNextConnect() throws Exception {
        // CometD's JavaScript client asks its first connect with a timeout of 0, then connects
        // again at once: a publish reply that carried messages could be read after that connect's.
        try (RawHttp http = RawHttp.connect(server.port())) {
            String[] session = connectedSubscriber(http, "/mine");
            RawHttp.Response reply = post(http, List.of("Cookie: " + session[0]),
                    "[{\"channel\":\"/mine\",\"data\":\"own\",\"clientId\":\"" + session[1] + "\"}]");
            assertEquals(1, messages(reply.body()).size(), "the publish reply alone: " + reply.text());
            RawHttp.Response connect = post(http, List.of("Cookie: " + session[0]), poll(session[1]));
            assertTrue(messages(connect.body()).stream().anyMatch(m -> "own".equals(m.get("data"))), connect.text());
        }
    }

    @Test
    void messagesComingSoonAfterAReplyWaitForTheGatherTimeAndShareOneReply() throws Exception {
        long gather = 1_500;
        server.restart(builder -> builder.bayeuxConfig(BayeuxServerConfig.builder().connectGather(Duration.ofMillis(gather)).build()));
        try (RawHttp http = RawHttp.connect(server.port())) {
            // The server counts the gather time from its reply to this first connect, sent after this
            // thread noted the time: counted from a moment this thread notes after reading that reply, it
            // could look short by however long the thread took to get there (CI: 1,499 of 1,500 ms).
            long[] connectSent = new long[1];
            String[] session = connectedSubscriber(http, "/ticks", connectSent);
            receiveOften(http, session, gather, connectSent);
            http.write(RawHttp.request("POST", PATH, List.of("Cookie: " + session[0], "Content-Type: application/json;charset=UTF-8"),
                    ("[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\"" + session[1] + "\"}]")
                            .getBytes(StandardCharsets.UTF_8)));
            var ticks = server.server().bayeux().createChannelIfAbsent("/ticks").getReference();
            for (int i = 0; i < 10; i++) {
                ticks.publish(null, "tick" + i);
                Thread.sleep(10);
            }
            RawHttp.Response reply = http.readResponse();
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - connectSent[0]);
            assertBayeuxHeaders(reply);
            List<Map<String, Object>> messages = messages(reply.body());
            assertEquals(11, messages.size(), "ten ticks and the connect reply: " + reply.text());
            for (int i = 0; i < 10; i++) {
                assertEquals("tick" + i, messages.get(i).get("data"));
            }
            assertEquals(true, messages.get(10).get("successful"));
            // Less 1 ms: the server's clock counts whole milliseconds.
            assertTrue(waited >= gather - 1, "answered " + waited + " ms after the previous connect was sent");
        }
    }

    @Test
    void gatherTimesEndingTogetherAreAnsweredOnOneTimerOfTheirLoop() throws Exception {
        long gather = 500;
        int count = 8;
        // One event loop for all the connections; ends of gather times within 10 ms (a twentieth of
        // the gather time, at most 10 ms) of one another share a slot.
        server.restart(builder -> builder.ioThreads(1)
                .bayeuxConfig(BayeuxServerConfig.builder().connectGather(Duration.ofMillis(gather)).build()));
        List<RawHttp> connections = new ArrayList<>();
        try {
            List<String[]> sessions = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                RawHttp http = RawHttp.connect(server.port());
                connections.add(http);
                String[] session = connectedSubscriber(http, "/ticks");
                receiveOften(http, session, gather, new long[1]);
                sessions.add(session);
            }
            var ticks = server.server().bayeux().createChannelIfAbsent("/ticks").getReference();
            // Every session holds a connect. Once the gather times of the first replies are over
            // (they ended one after the other), one message answers all the held connects at once.
            // Each session's last reply above waited for a gather time of its own.
            long before = server.server().gatherTimers();
            connectAll(connections, sessions);
            Thread.sleep(gather + 50);
            ticks.publish(null, "tick1");
            readTicks(connections, "tick1");
            assertEquals(before, server.server().gatherTimers(), "answered at once, with no gather time left");
            // Connected again, they get the next message when the gather times of those replies
            // end, about together.
            connectAll(connections, sessions);
            ticks.publish(null, "tick2");
            long sent = System.nanoTime();
            readTicks(connections, "tick2");
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent);
            long timers = server.server().gatherTimers() - before;
            // Eight ends made within a few milliseconds fall in one slot, or two across a slot's edge
            // (three on a slow machine); one timer each would be eight.
            assertTrue(timers >= 1 && timers <= 3, count + " gather times ended on " + timers + " timers of their loop");
            assertTrue(waited < gather + 1_000, "answered " + waited + " ms after the message, in a gather time of " + gather);
        } finally {
            for (RawHttp http : connections) {
                http.close();
            }
        }
    }

    @Test
    void whileAConnectIsHeldTheRepliesToTheSessionsOtherRequestsLeaveItsMessagesToTheConnect() throws Exception {
        // A long gather time: the held connect waits for it with the first message queued.
        server.restart(builder -> builder.bayeuxConfig(BayeuxServerConfig.builder().connectGather(Duration.ofSeconds(3)).build()));
        try (RawHttp polling = RawHttp.connect(server.port()); RawHttp other = RawHttp.connect(server.port())) {
            String[] session = connectedSubscriber(polling, "/chat");
            receiveOften(polling, session, 3_000, new long[1]);
            sendConnectAndAwaitItsHold(polling, session);
            var chat = server.server().bayeux().createChannelIfAbsent("/chat").getReference();
            chat.publish(null, "first");
            // The session publishes on its other connection, as a browser does while its connect
            // is held: a reply carrying "first" on this connection could be read after the
            // connect's reply that carries what came next, on the other.
            RawHttp.Response published = post(other, List.of("Cookie: " + session[0]),
                    "[{\"channel\":\"/chat\",\"data\":\"second\",\"clientId\":\"" + session[1] + "\"}]");
            List<Map<String, Object>> publishReplies = messages(published.body());
            assertEquals(1, publishReplies.size(), "the publish reply alone: " + published.text());
            assertEquals(true, publishReplies.get(0).get("successful"), published.text());
            RawHttp.Response connected = polling.readResponse();
            List<Map<String, Object>> messages = messages(connected.body());
            assertEquals(3, messages.size(), "both messages, in order, then the connect reply: " + connected.text());
            assertEquals("first", messages.get(0).get("data"));
            assertEquals("second", messages.get(1).get("data"));
            assertEquals(Channel.META_CONNECT, messages.get(2).get("channel"));
        }
    }

    @Test
    void betweenAConnectReplyAndTheNextConnectTheRepliesToTheSessionsOtherRequestsLeaveItsMessagesToThatConnect() throws Exception {
        // No gather time: a message answers a held connect at once.
        server.restart(builder -> builder.bayeuxConfig(BayeuxServerConfig.builder().connectGather(Duration.ZERO).build()));
        try (RawHttp polling = RawHttp.connect(server.port()); RawHttp other = RawHttp.connect(server.port())) {
            String[] session = connectedSubscriber(polling, "/chat");
            String connect = sendConnectAndAwaitItsHold(polling, session);
            var chat = server.server().bayeux().createChannelIfAbsent("/chat").getReference();
            chat.publish(null, "first");
            RawHttp.Response firstReply = polling.readResponse();
            assertEquals("first", messages(firstReply.body()).get(0).get("data"), firstReply.text());
            // The client has the connect reply but has not connected again yet: a reply on its
            // other connection that carried "second" could be read before the one carrying "first".
            chat.publish(null, "second");
            RawHttp.Response published = post(other, List.of("Cookie: " + session[0]),
                    "[{\"channel\":\"/elsewhere\",\"data\":\"x\",\"clientId\":\"" + session[1] + "\"}]");
            List<Map<String, Object>> publishReplies = messages(published.body());
            assertEquals(1, publishReplies.size(), "the publish reply alone: " + published.text());
            assertEquals(true, publishReplies.get(0).get("successful"), published.text());
            RawHttp.Response next = post(polling, List.of("Cookie: " + session[0]), connect);
            List<Map<String, Object>> messages = messages(next.body());
            assertEquals(2, messages.size(), "the message, then the connect reply: " + next.text());
            assertEquals("second", messages.get(0).get("data"), next.text());
            assertEquals(Channel.META_CONNECT, messages.get(1).get("channel"), next.text());
        }
    }

    @Test
    void whileAConnectIsOnItsWayThroughTheServerTheRepliesToTheSessionsOtherRequestsLeaveItsMessagesToIt() throws Exception {
        server.restart(builder -> builder.bayeuxConfig(BayeuxServerConfig.builder().connectGather(Duration.ZERO).build()));
        try (RawHttp polling = RawHttp.connect(server.port()); RawHttp other = RawHttp.connect(server.port())) {
            String[] session = connectedSubscriber(polling, "/chat");
            // The next connect stops in a listener of /meta/connect: the server saw it arrive,
            // and has neither held nor answered it yet.
            CountDownLatch arrived = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            ServerChannel.MessageListener pause = (from, channel, message) -> {
                if (from != null && session[1].equals(from.getId())) {
                    arrived.countDown();
                    try {
                        release.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException x) {
                        Thread.currentThread().interrupt();
                    }
                }
                return true;
            };
            ServerChannel metaConnect = server.server().bayeux().getChannel(Channel.META_CONNECT);
            metaConnect.addListener(pause);
            try {
                String connect = "[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\"" + session[1] + "\"}]";
                polling.write(RawHttp.request("POST", PATH, List.of("Cookie: " + session[0], "Content-Type: application/json;charset=UTF-8"),
                        connect.getBytes(StandardCharsets.UTF_8)));
                assertTrue(arrived.await(10, TimeUnit.SECONDS), "the connect arrived");
                server.server().bayeux().createChannelIfAbsent("/chat").getReference().publish(null, "first");
                // A reply on the other connection that carried "first" could be read after the
                // connect's, which may carry what comes next.
                RawHttp.Response published = post(other, List.of("Cookie: " + session[0]),
                        "[{\"channel\":\"/elsewhere\",\"data\":\"x\",\"clientId\":\"" + session[1] + "\"}]");
                List<Map<String, Object>> publishReplies = messages(published.body());
                assertEquals(1, publishReplies.size(), "the publish reply alone: " + published.text());
                assertEquals(true, publishReplies.get(0).get("successful"), published.text());
            } finally {
                release.countDown();
                metaConnect.removeListener(pause);
            }
            RawHttp.Response connected = polling.readResponse();
            List<Map<String, Object>> messages = messages(connected.body());
            assertEquals(2, messages.size(), "the message, then the connect reply: " + connected.text());
            assertEquals("first", messages.get(0).get("data"), connected.text());
            assertEquals(Channel.META_CONNECT, messages.get(1).get("channel"), connected.text());
        }
    }

    @Test
    void aClientThatSendsNoConnectForMaxIntervalButOtherRequestsGetsItsMessagesInTheirReplies() throws Exception {
        server.restart(builder -> builder.bayeuxConfig(BayeuxServerConfig.builder().connectGather(Duration.ZERO)
                .maxInterval(Duration.ofSeconds(1)).build()));
        try (RawHttp polling = RawHttp.connect(server.port()); RawHttp other = RawHttp.connect(server.port())) {
            String[] session = connectedSubscriber(polling, "/chat");
            // A connect that asks to be held, answered at once by what is queued: the client should connect again.
            var chat = server.server().bayeux().createChannelIfAbsent("/chat").getReference();
            chat.publish(null, "first");
            RawHttp.Response firstReply = post(polling, List.of("Cookie: " + session[0]),
                    "[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\"" + session[1] + "\"}]");
            long connectEnded = System.nanoTime();
            assertEquals("first", messages(firstReply.body()).get(0).get("data"), firstReply.text());
            chat.publish(null, "second");
            String publish = "[{\"channel\":\"/elsewhere\",\"data\":\"x\",\"clientId\":\"" + session[1] + "\"}]";
            RawHttp.Response early = post(other, List.of("Cookie: " + session[0]), publish);
            assertEquals(1, messages(early.body()).size(), "the next connect is due: " + early.text());
            // Its requests keep the session from expiring (a second past the last one), not the connect it owes.
            Thread.sleep(Math.max(0, 600 - (System.nanoTime() - connectEnded) / 1_000_000));
            post(other, List.of("Cookie: " + session[0]), publish);
            Thread.sleep(Math.max(0, 1_200 - (System.nanoTime() - connectEnded) / 1_000_000));
            RawHttp.Response late = post(other, List.of("Cookie: " + session[0]), publish);
            List<Map<String, Object>> messages = messages(late.body());
            assertEquals(2, messages.size(), "a maxInterval without a connect: " + late.text());
            assertEquals("second", messages.get(0).get("data"), late.text());
        }
    }

    @Test
    void whatABatchPublishesToItsOwnSessionGoesInOrderWithTheHeldConnectsReply() throws Exception {
        // No gather time: a message answers a held connect at once.
        server.restart(builder -> builder.bayeuxConfig(BayeuxServerConfig.builder().connectGather(Duration.ZERO).build()));
        try (RawHttp polling = RawHttp.connect(server.port()); RawHttp other = RawHttp.connect(server.port())) {
            String[] session = connectedSubscriber(polling, "/chat");
            sendConnectAndAwaitItsHold(polling, session);
            // Three messages in one request, to a channel the session subscribes to: the first must not
            // answer the held connect on its own, leaving the others to this request's reply.
            StringBuilder batch = new StringBuilder("[");
            for (int i = 1; i <= 3; i++) {
                batch.append(i > 1 ? "," : "").append("{\"channel\":\"/chat\",\"data\":\"m").append(i)
                        .append("\",\"clientId\":\"").append(session[1]).append("\"}");
            }
            RawHttp.Response published = post(other, List.of("Cookie: " + session[0]), batch.append("]").toString());
            List<Map<String, Object>> publishReplies = messages(published.body());
            assertEquals(3, publishReplies.size(), "the three publish replies alone: " + published.text());
            RawHttp.Response connected = polling.readResponse();
            List<Map<String, Object>> messages = messages(connected.body());
            assertEquals(4, messages.size(), "the three messages, in order, then the connect reply: " + connected.text());
            for (int i = 1; i <= 3; i++) {
                assertEquals("m" + i, messages.get(i - 1).get("data"), connected.text());
            }
        }
    }

    private static void connectAll(List<RawHttp> connections, List<String[]> sessions) throws Exception {
        for (int i = 0; i < connections.size(); i++) {
            String[] session = sessions.get(i);
            connections.get(i).write(RawHttp.request("POST", PATH, List.of("Cookie: " + session[0], "Content-Type: application/json;charset=UTF-8"),
                    ("[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\"" + session[1] + "\"}]")
                            .getBytes(StandardCharsets.UTF_8)));
        }
    }

    private static void readTicks(List<RawHttp> connections, String tick) throws Exception {
        for (RawHttp http : connections) {
            RawHttp.Response reply = http.readResponse();
            List<Map<String, Object>> messages = messages(reply.body());
            assertEquals(2, messages.size(), "the message and the connect reply: " + reply.text());
            assertEquals(tick, messages.get(0).get("data"), reply.text());
        }
    }

    /** A server extension that notes the threads handling each incoming /meta/connect and making each reply. */
    private static class ConnectThreads implements BayeuxServer.Extension {
        final List<String> handled = new CopyOnWriteArrayList<>();
        final List<String> replied = new CopyOnWriteArrayList<>();

        @Override
        public boolean rcvMeta(ServerSession from, ServerMessage.Mutable message) {
            if (Channel.META_CONNECT.equals(message.getChannel())) {
                handled.add(Thread.currentThread().getName());
            }
            return true;
        }

        @Override
        public boolean sendMeta(ServerSession to, ServerMessage.Mutable message) {
            if (Channel.META_CONNECT.equals(message.getChannel())) {
                replied.add(Thread.currentThread().getName());
            }
            return true;
        }
    }

    private static final class NonBlockingConnectThreads extends ConnectThreads implements NonBlocking {
    }

    /**
     * For a session that receives often: connects, publishes at once (the gather time of the
     * last reply is running), and returns the thread that made the held connect's reply.
     */
    private String heldReplyThread(ConnectThreads extension) throws Exception {
        connectTwiceAndPublish(extension, false);
        assertEquals(1, extension.replied.size(), "the held connect's reply: " + extension.replied);
        return extension.replied.get(0);
    }

    /**
     * Handshakes, subscribes, connects (answered at once), connects again and publishes, then
     * reads the second connect's reply, which carries the message, {@code extension} on the server
     * for the two connects. When {@code afterHandled}, publishes once the second connect was
     * handled (held or about to be: the reply carries the message either way); otherwise the
     * session is first made one that receives often, {@code extension} added after that, and it
     * publishes at once, while the gather time of the last reply runs.
     */
    private void connectTwiceAndPublish(ConnectThreads extension, boolean afterHandled) throws Exception {
        if (afterHandled) {
            server.server().bayeux().addExtension(extension);
        }
        try (RawHttp http = RawHttp.connect(server.port())) {
            String[] session = connectedSubscriber(http, "/ticks");
            if (!afterHandled) {
                receiveOften(http, session, BayeuxServerConfig.DEFAULT_CONNECT_GATHER.toMillis(), new long[1]);
                server.server().bayeux().addExtension(extension);
            }
            http.write(RawHttp.request("POST", PATH, List.of("Cookie: " + session[0], "Content-Type: application/json;charset=UTF-8"),
                    ("[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\"" + session[1] + "\"}]")
                            .getBytes(StandardCharsets.UTF_8)));
            if (afterHandled) {
                Await.until(Duration.ofSeconds(10), () -> extension.handled.size() >= 2, () -> "the second connect handled: " + extension.handled);
            }
            server.server().bayeux().createChannelIfAbsent("/ticks").getReference().publish(null, "tick");
            RawHttp.Response reply = http.readResponse();
            assertEquals("tick", messages(reply.body()).get(0).get("data"), reply.text());
        } finally {
            server.server().bayeux().removeExtension(extension);
        }
    }

    @Test
    void aHeldConnectsReplyIsMadeOnTheConnectionsEventLoopWhenNoApplicationCodeTakesPart() throws Exception {
        String thread = heldReplyThread(new NonBlockingConnectThreads());
        assertTrue(thread.startsWith("bayeux-io"), "made on the event loop whose timer fired: " + thread);
    }

    @Test
    void aHeldConnectsReplyIsMadeOnTheExecutorWhenAnExtensionMayBlock() throws Exception {
        String thread = heldReplyThread(new ConnectThreads());
        assertTrue(thread.startsWith("bayeux-app"), "application code runs on the executor: " + thread);
    }

    /** The Content-Encoding of the reply to a publish of {@code data} that the publisher itself receives, and its messages. */
    private static String replyEncoding(int port, String data) throws Exception {
        try (RawHttp http = RawHttp.connect(port)) {
            String[] session = pollingSubscriber(http, "/sized");
            RawHttp.Response reply = post(http, List.of("Cookie: " + session[0], "Accept-Encoding: gzip"),
                    "[{\"channel\":\"/sized\",\"data\":\"" + data + "\",\"clientId\":\"" + session[1] + "\"}]");
            assertBayeuxHeaders(reply);
            byte[] json = reply.body();
            String encoding = reply.header("Content-Encoding");
            if ("gzip".equals(encoding)) {
                try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(json))) {
                    json = in.readAllBytes();
                }
            }
            assertEquals(data, messages(json).get(0).get("data"), new String(json, StandardCharsets.UTF_8));
            return encoding;
        }
    }

    @Test
    void repliesAreGzippedFromGzipMinBytes() throws Exception {
        String data = "x".repeat(1_100);
        assertNull(replyEncoding(server.port(), data), "a body under 1,280 bytes fits one segment with its headers: not gzipped by default");
        NettyBayeuxServer lower = NettyBayeuxServer.builder().port(0).gzipMinBytes(1_000).build().start();
        try {
            assertEquals("gzip", replyEncoding(lower.port(), data));
        } finally {
            lower.stop();
        }
        assertThrows(IllegalArgumentException.class, () -> NettyBayeuxServer.builder().gzipMinBytes(-1));
    }

    /** Connects twice (the second held, answered by a publish) and returns the threads that handled the two connects. */
    private List<String> connectThreads(ConnectThreads extension) throws Exception {
        connectTwiceAndPublish(extension, true);
        return extension.handled;
    }

    @Test
    void aConnectIsHandledOnItsConnectionsEventLoopWhenNoApplicationCodeTakesPart() throws Exception {
        List<String> threads = connectThreads(new NonBlockingConnectThreads());
        assertEquals(2, threads.size(), threads.toString());
        for (String thread : threads) {
            assertTrue(thread.startsWith("bayeux-io"), "handled on the event loop that read it: " + threads);
        }
    }

    @Test
    void aConnectIsHandledOnTheExecutorWhenApplicationCodeTakesPart() throws Exception {
        List<String> threads = connectThreads(new ConnectThreads());
        assertEquals(2, threads.size(), threads.toString());
        for (String thread : threads) {
            assertTrue(thread.startsWith("bayeux-app"), "an extension that may block: " + threads);
        }

        ServerChannel connects = server.server().bayeux().createChannelIfAbsent(Channel.META_CONNECT).getReference();
        ServerChannel.MessageListener listener = (from, channel, message) -> true;
        connects.addListener(listener);
        try {
            threads = connectThreads(new NonBlockingConnectThreads());
        } finally {
            connects.removeListener(listener);
        }
        assertEquals(2, threads.size(), threads.toString());
        for (String thread : threads) {
            assertTrue(thread.startsWith("bayeux-app"), "a listener on /meta/connect: " + threads);
        }
    }

    @Test
    void manyRequestsArrivingTogetherAreAllAnswered() throws Exception {
        int count = 100;
        List<RawHttp> connections = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                connections.add(RawHttp.connect(server.port()));
            }
            byte[] handshake = RawHttp.post(PATH, "application/json",
                    "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"long-polling\"]}]".getBytes(StandardCharsets.UTF_8));
            for (RawHttp http : connections) {
                // Two requests at once on each connection (pipelined): answered in order.
                byte[] twice = new byte[handshake.length * 2];
                System.arraycopy(handshake, 0, twice, 0, handshake.length);
                System.arraycopy(handshake, 0, twice, handshake.length, handshake.length);
                http.write(twice);
            }
            for (RawHttp http : connections) {
                for (int i = 0; i < 2; i++) {
                    RawHttp.Response response = http.readResponse();
                    assertBayeuxHeaders(response);
                    assertEquals(true, first(response).get("successful"), response.text());
                }
            }
        } finally {
            for (RawHttp http : connections) {
                http.close();
            }
        }
    }

    private static RawHttp.Response post(RawHttp http, List<String> headers, String json) throws Exception {
        List<String> all = new ArrayList<>(headers);
        all.add("Content-Type: application/json;charset=UTF-8");
        http.write(RawHttp.request("POST", PATH, all, json.getBytes(StandardCharsets.UTF_8)));
        return http.readResponse();
    }

    private static void assertBayeuxHeaders(RawHttp.Response response) {
        assertEquals(200, response.status(), response.text());
        assertEquals("application/json;charset=UTF-8", response.header("Content-Type"));
        assertEquals("no-cache, no-store", response.header("Cache-Control"));
        assertEquals("keep-alive", response.header("Connection"));
        assertEquals(response.body().length, Integer.parseInt(response.header("Content-Length")));
    }

    private static Map<String, Object> first(RawHttp.Response response) throws Exception {
        return messages(response.body()).get(0);
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> messages(byte[] json) throws Exception {
        return (List<Map<String, Object>>) JSON.parse(json);
    }
}
