package io.bayeux.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.client.BayeuxClient;
import io.bayeux.client.ClientConfig;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.CookieManager;
import java.net.CookiePolicy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Servers that lose messages on purpose: the tool reports exactly how many. */
class LossyServerIT {
    @RegisterExtension
    final BenchmarkServerFixture servers = new BenchmarkServerFixture();

    @Test
    @Timeout(120)
    void aServerThatSilentlyDropsEveryHundredthDeliveryIsReportedWithTheExactLoss() throws Exception {
        AtomicLong deliveries = new AtomicLong();
        AtomicLong dropped = new AtomicLong();
        NettyBayeuxServer server = servers.start(bayeux -> bayeux.addListener(new BayeuxServer.SessionListener() {
            @Override
            public void sessionAdded(ServerSession session, ServerMessage message) {
                session.addListener((ServerSession.MessageListener) (to, from, m) -> {
                    if (!m.getChannel().startsWith("/chat/") || deliveries.incrementAndGet() % 100 != 0) {
                        return true;
                    }
                    dropped.incrementAndGet();
                    return false;
                });
            }

            @Override
            public void sessionRemoved(ServerSession session, ServerMessage message, boolean timeout) {
            }
        }));

        RunResult result = new ChatBenchmark(TestScenarios.scenario(server.uri(), Scenario.WEBSOCKET, 100, 60), "lossy", null, 2,
                TestScenarios.QUIET, false).run();

        Counts counts = result.counts();
        assertTrue(dropped.get() > 0);
        assertEquals("quiet", result.drain(), "nothing more came: the missing messages are lost");
        assertEquals(dropped.get(), counts.lost());
        assertEquals(counts.expected() - dropped.get(), counts.received());
        assertEquals(0, counts.duplicated());
    }

    @Test
    @Timeout(120)
    void publishesThatAChannelListenerVetoesAreReportedAsFailedAndNotExpected() throws Exception {
        AtomicLong publishes = new AtomicLong();
        AtomicLong vetoed = new AtomicLong();
        TestScenarios.ServerCount count = new TestScenarios.ServerCount();
        NettyBayeuxServer server = servers.start(bayeux -> {
            bayeux.createChannelIfAbsent("/chat/**", channel -> channel.addListener((ServerChannel.MessageListener) (from, target, m) -> {
                if (publishes.incrementAndGet() % 100 != 0) {
                    return true;
                }
                vetoed.incrementAndGet();
                return false;
            }));
            count.accept(bayeux);
        });

        RunResult result = new ChatBenchmark(TestScenarios.scenario(server.uri(), Scenario.WEBSOCKET, 100, 60), "vetoed", null, 2,
                TestScenarios.QUIET, false).run();

        Counts counts = result.counts();
        assertTrue(vetoed.get() > 0);
        assertEquals(vetoed.get(), counts.failedPublishes());
        assertEquals(0, counts.lost());
        assertEquals(counts.expected(), counts.received());
    }

    @Test
    @Timeout(60)
    void theStatsServiceCountsTheMessagesThatMetAFullQueueWhateverThePolicyDid() throws Exception {
        try (NettyBayeuxServer server = BenchmarkServer.builder(BenchmarkServer.Settings.defaults("127.0.0.1", 0).withMaxQueue(50), null)
                .build().start()) {
            // A long-polling session that subscribes and never connects: what is published to it stays queued.
            // Its cookie goes with each request, as a browser's does (the server binds the session to it).
            HttpClient http = HttpClient.newBuilder().cookieHandler(new CookieManager(null, CookiePolicy.ACCEPT_ALL)).build();
            JsonNode handshake = post(http, server.uri(),
                    "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"long-polling\"]}]");
            String clientId = handshake.get(0).get("clientId").asText();
            JsonNode subscribe = post(http, server.uri(),
                    "[{\"channel\":\"/meta/subscribe\",\"clientId\":\"" + clientId + "\",\"subscription\":\"/chat/room/0\"}]");
            assertTrue(subscribe.get(0).get("successful").asBoolean(), subscribe.toString());
            ServerChannel room = server.bayeux().createChannelIfAbsent("/chat/room/0").getReference();
            for (int i = 0; i < 60; i++) {
                room.publish(null, Map.of("text", "message " + i));
            }

            BayeuxClient client = new BayeuxClient(server.uri().toString(), ClientConfig.builder().build());
            try {
                client.handshake();
                Map<String, Object> stats = RunFigures.serverStats(client);
                assertEquals(10L, RunFigures.stat(stats, "queueOverflows"), "60 messages to a queue of 50: " + stats);
            } finally {
                client.disconnect();
            }
        }
    }

    private static JsonNode post(HttpClient http, URI uri, String body) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        return new ObjectMapper().readTree(response.body());
    }

    @Test
    @Timeout(120)
    void clientsOfferPermessageDeflateUnlessToldNotTo() throws Exception {
        for (boolean offer : new boolean[]{true, false}) {
            List<String> offers = new CopyOnWriteArrayList<>();
            try (NettyBayeuxServer server = TestScenarios.server(bayeux -> bayeux.addListener(new BayeuxServer.SessionListener() {
                @Override
                public void sessionAdded(ServerSession session, ServerMessage message) {
                    String extensions = message.getBayeuxContext().getHeader("Sec-WebSocket-Extensions");
                    offers.add(String.valueOf(extensions));
                }

                @Override
                public void sessionRemoved(ServerSession session, ServerMessage message, boolean timeout) {
                }
            }))) {
                Scenario scenario = TestScenarios.scenario(server.uri(), Scenario.WEBSOCKET, 10, 10).withOfferDeflate(offer);
                RunResult result = new ChatBenchmark(scenario, "deflate " + offer, null, 2, TestScenarios.QUIET, false).run();

                assertEquals(0, result.counts().lost());
                assertTrue(offers.size() >= 10, "every client handshook: " + offers);
                for (String extensions : offers) {
                    assertEquals(offer, extensions.contains("permessage-deflate"), "offer " + offer + ": " + offers);
                }
            }
        }
    }
}
