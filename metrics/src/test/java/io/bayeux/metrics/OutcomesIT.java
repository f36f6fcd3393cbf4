package io.bayeux.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.HistoryPolicy;
import io.bayeux.api.server.SecurityPolicy;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.api.server.LocalSession;
import io.bayeux.server.BayeuxServerConfig;
import io.bayeux.server.QueueOverflow;
import io.bayeux.testing.Await;
import io.bayeux.transport.NettyBayeuxServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.CookieManager;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the happy path does not show, over real sockets as a long-polling client speaks: a refused
 * handshake and a refused publish counted by their reason, a session that never connects
 * counted as expired when the sweeper removes it, a queue's overflow under its policy, and
 * recoveries from a channel's history by outcome with the messages they replayed.
 */
class OutcomesIT {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Refuses handshakes whose ext says {@code deny}, and publishes to {@code /denied/**}. */
    private static final class Policy implements SecurityPolicy {
        @Override
        public boolean canHandshake(BayeuxServer server, ServerSession session, ServerMessage message) {
            return message.getExt() == null || !Boolean.TRUE.equals(message.getExt().get("deny"));
        }

        @Override
        public boolean canPublish(BayeuxServer server, ServerSession session, ServerChannel channel, ServerMessage message) {
            return !channel.getId().startsWith("/denied/");
        }
    }

    /** A long-polling client's HTTP: the server ties a session to its browser's cookie. */
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).cookieHandler(new CookieManager()).build();

    private JsonNode reply(NettyBayeuxServer server, String batch) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(server.uri()).timeout(WAIT).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(batch)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response::body);
        return JSON.readTree(response.body()).get(0);
    }

    private static Map<String, PrometheusParser.Family> scrape(PrometheusMeterRegistry registry) {
        try {
            return PrometheusParser.parse(registry.scrape(), "text");
        } catch (Exception x) {
            throw new AssertionError(x);
        }
    }

    @AfterEach
    void close() {
        http.close();
    }

    @Test
    void refusalsCountByReasonAndASessionThatNeverConnectsExpires() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        BayeuxServerConfig config = BayeuxServerConfig.builder().maxInterval(Duration.ofSeconds(1)).sweepPeriod(Duration.ofMillis(100)).build();
        try (NettyBayeuxServer server = NettyBayeuxServer.builder().host("127.0.0.1").port(0).bayeuxConfig(config).build();
             BayeuxMetrics metrics = BayeuxMetrics.bind(server, registry)) {
            server.bayeux().setSecurityPolicy(new Policy());
            server.start();
            String handshake = "{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"long-polling\"]";

            assertFalse(reply(server, "[" + handshake + ",\"ext\":{\"deny\":true}}]").get("successful").asBoolean());
            String clientId = reply(server, "[" + handshake + "}]").get("clientId").asText();
            String publish = "[{\"channel\":\"%s\",\"clientId\":\"" + clientId + "\",\"data\":\"hello\"}]";
            JsonNode denied = reply(server, publish.formatted("/denied/room"));
            assertTrue(denied.get("error").asText().endsWith(":publish_denied"), denied::toString);
            JsonNode accepted = reply(server, publish.formatted("/chat/room"));
            assertTrue(accepted.get("successful").asBoolean(), accepted::toString);

            Map<String, PrometheusParser.Family> families = scrape(registry);
            PrometheusParser.Family handshakes = families.get("bayeux_handshakes");
            assertEquals(1, handshakes.value("bayeux_handshakes_total", "outcome", "handshake_denied"));
            assertEquals(1, handshakes.value("bayeux_handshakes_total", "outcome", "success"));
            PrometheusParser.Family refused = families.get("bayeux_publishes_refused");
            assertEquals(1, refused.value("bayeux_publishes_refused_total", "reason", "publish_denied"));
            assertEquals(1, refused.sum("bayeux_publishes_refused_total"), "one refusal, under its reason only");
            assertEquals(1, families.get("bayeux_messages_published").value("bayeux_messages_published_total", "transport", "long-polling"));

            // It never sends /meta/connect: the sweeper removes it once its maximum interval has passed.
            Await.until(WAIT, () -> scrape(registry).get("bayeux_disconnects").value("bayeux_disconnects_total", "cause", "expiry") == 1,
                    () -> "the session expired: " + registry.scrape());
            families = scrape(registry);
            assertEquals(0, families.get("bayeux_sessions").sum("bayeux_sessions"));
            assertEquals(0, families.get("bayeux_disconnects").value("bayeux_disconnects_total", "cause", "client"));
        }
    }

    @Test
    void aQueueThatOverflowsCountsUnderItsPolicyAndItsSessionsRemovalUnderOverflow() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (NettyBayeuxServer server = NettyBayeuxServer.builder().host("127.0.0.1").port(0).maxQueue(2, QueueOverflow.DISCONNECT).build();
             BayeuxMetrics metrics = BayeuxMetrics.bind(server, registry)) {
            server.start();
            String clientId = reply(server, "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"long-polling\"]}]")
                    .get("clientId").asText();
            JsonNode subscribed = reply(server, "[{\"channel\":\"/meta/subscribe\",\"clientId\":\"" + clientId + "\",\"subscription\":\"/chat/room\"}]");
            assertTrue(subscribed.get("successful").asBoolean(), subscribed::toString);

            // It has not connected yet, so nothing takes from its queue: the third message finds it full.
            LocalSession publisher = server.bayeux().newLocalSession("publisher");
            publisher.handshake();
            for (int i = 0; i < 3; i++) {
                publisher.getChannel("/chat/room").publish("hello " + i);
            }
            Await.until(WAIT, () -> scrape(registry).get("bayeux_disconnects").value("bayeux_disconnects_total", "cause", "overflow") == 1,
                    () -> "the session removed: " + registry.scrape());
            PrometheusParser.Family overflows = scrape(registry).get("bayeux_queue_overflows");
            assertEquals("counter", overflows.type());
            assertEquals(1, overflows.value("bayeux_queue_overflows_total", "policy", "disconnect"));
            assertEquals(1, overflows.sum("bayeux_queue_overflows_total"), "under its policy only");
        }
    }

    @Test
    void recoveriesCountByOutcomeAndTheMessagesTheyReplay() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (NettyBayeuxServer server = NettyBayeuxServer.builder().host("127.0.0.1").port(0).build();
             BayeuxMetrics metrics = BayeuxMetrics.bind(server, registry)) {
            server.bayeux().createChannelIfAbsent("/chat/**").getReference().setHistory(HistoryPolicy.of(100, Duration.ofMinutes(5)));
            server.start();
            String handshake = "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"long-polling\"]}]";
            String subscribe = "[{\"channel\":\"/meta/subscribe\",\"clientId\":\"%s\",\"subscription\":\"/chat/room\"%s}]";
            JsonNode first = reply(server, subscribe.formatted(reply(server, handshake).get("clientId").asText(), ""));
            JsonNode position = first.at("/ext/history/~1chat~1room");
            assertTrue(position.has("offset"), first::toString);

            LocalSession publisher = server.bayeux().newLocalSession("publisher");
            publisher.handshake();
            for (int i = 0; i < 3; i++) {
                publisher.getChannel("/chat/room").publish("hello " + i);
            }
            String recover = ",\"ext\":{\"recover\":{\"/chat/room\":{\"offset\":%d,\"epoch\":\"%s\"}}}";
            long offset = position.get("offset").asLong();
            String epoch = position.get("epoch").asText();
            JsonNode recovered = reply(server, subscribe.formatted(reply(server, handshake).get("clientId").asText(), recover.formatted(offset, epoch)));
            assertTrue(recovered.at("/ext/history/~1chat~1room/recovered").asBoolean(), recovered::toString);
            JsonNode otherEpoch = reply(server, subscribe.formatted(reply(server, handshake).get("clientId").asText(), recover.formatted(offset, epoch + "x")));
            assertFalse(otherEpoch.at("/ext/history/~1chat~1room/recovered").asBoolean(), otherEpoch::toString);

            Map<String, PrometheusParser.Family> families = scrape(registry);
            PrometheusParser.Family recoveries = families.get("bayeux_history_recoveries");
            assertEquals("counter", recoveries.type());
            assertEquals(1, recoveries.value("bayeux_history_recoveries_total", "outcome", "recovered"));
            assertEquals(1, recoveries.value("bayeux_history_recoveries_total", "outcome", "epoch"));
            assertEquals(2, recoveries.sum("bayeux_history_recoveries_total"), "the first subscription asked for none");
            assertEquals(3, families.get("bayeux_history_replayed").value("bayeux_history_replayed_total"));
        }
    }
}
