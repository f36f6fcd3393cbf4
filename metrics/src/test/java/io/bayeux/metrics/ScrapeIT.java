package io.bayeux.metrics;

import io.bayeux.api.Message;
import io.bayeux.api.client.ClientSessionChannel;
import io.bayeux.client.BayeuxClient;
import io.bayeux.client.ClientConfig;
import io.bayeux.client.transport.LongPollingTransport;
import io.bayeux.client.transport.WebSocketTransport;
import io.bayeux.testing.Await;
import io.bayeux.transport.NettyBayeuxServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Real traffic over each transport, then the server's {@code /metrics} read by the Prometheus parser:
 * every family present with its type, and moving by what the traffic did.
 */
class ScrapeIT {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final int SUBSCRIBERS = 2;
    private static final int PUBLISHED = 5;

    private final List<BayeuxClient> clients = new ArrayList<>();
    private NettyBayeuxServer server;
    private BayeuxMetrics metrics;

    @AfterEach
    void stop() throws InterruptedException {
        for (BayeuxClient client : clients) {
            client.disconnect();
            client.waitFor(WAIT, BayeuxClient.State.DISCONNECTED);
        }
        if (metrics != null) {
            metrics.close();
        }
        if (server != null) {
            server.stop();
        }
    }

    private BayeuxClient client(String transport) throws InterruptedException {
        ClientConfig config = ClientConfig.builder().build();
        BayeuxClient client = "long-polling".equals(transport)
                ? new BayeuxClient(server.uri().toString(), config, new LongPollingTransport(config))
                : new BayeuxClient(server.uri().toString(), config, new WebSocketTransport(config));
        clients.add(client);
        client.handshake();
        assertTrue(client.waitFor(WAIT, BayeuxClient.State.CONNECTED), () -> "not connected: " + client);
        return client;
    }

    private static Message reply(BlockingQueue<Message> replies) throws InterruptedException {
        Message reply = replies.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertNotNull(reply, "no reply");
        assertTrue(reply.isSuccessful(), reply::toString);
        return reply;
    }

    /** A scrape of the server's own {@code /metrics}, as Prometheus would. */
    private Map<String, PrometheusParser.Family> scrape() throws Exception {
        HttpResponse<String> response = Http.get(server.uri().resolve(MetricsEndpoints.METRICS_PATH), null);
        assertEquals(200, response.statusCode(), response::body);
        assertEquals(Scrape.TEXT, response.headers().firstValue("Content-Type").orElse(null));
        return PrometheusParser.parse(response.body(), "text");
    }

    private static PrometheusParser.Family family(Map<String, PrometheusParser.Family> families, String name, String type) {
        PrometheusParser.Family family = families.get(name);
        assertNotNull(family, () -> name + " missing from " + families.keySet());
        assertEquals(type, family.type(), name);
        return family;
    }

    @ParameterizedTest
    @ValueSource(strings = {"websocket", "long-polling"})
    void publishesMoveTheCountersByWhatTheyDelivered(String transport) throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        server = MetricsEndpoints.builder(registry).build().addTo(NettyBayeuxServer.builder().host("127.0.0.1").port(0)).build();
        metrics = BayeuxMetrics.bind(server, registry);
        server.start();

        List<List<Object>> received = new ArrayList<>();
        for (int i = 0; i < SUBSCRIBERS; i++) {
            List<Object> got = new CopyOnWriteArrayList<>();
            received.add(got);
            BlockingQueue<Message> replies = new LinkedBlockingQueue<>();
            client(transport).getChannel("/chat/room").subscribe((ClientSessionChannel.MessageListener) (c, m) -> got.add(m.getData()), replies::add);
            reply(replies);
        }
        BayeuxClient publisher = client(transport);
        Map<String, PrometheusParser.Family> before = scrape();

        BlockingQueue<Message> replies = new LinkedBlockingQueue<>();
        for (int i = 0; i < PUBLISHED; i++) {
            publisher.getChannel("/chat/room").publish("hello " + i, replies::add);
        }
        for (int i = 0; i < PUBLISHED; i++) {
            reply(replies);
        }
        for (List<Object> got : received) {
            Await.until(WAIT, () -> got.size() == PUBLISHED, () -> "each subscriber gets every message: " + received);
        }
        Map<String, PrometheusParser.Family> after = scrape();

        String[] byTransport = {"transport", transport};
        assertEquals(PUBLISHED, family(after, "bayeux_messages_published", "counter").value("bayeux_messages_published_total", byTransport)
                - family(before, "bayeux_messages_published", "counter").value("bayeux_messages_published_total", byTransport));
        assertEquals(PUBLISHED * SUBSCRIBERS, family(after, "bayeux_messages_delivered", "counter").value("bayeux_messages_delivered_total", byTransport)
                - family(before, "bayeux_messages_delivered", "counter").value("bayeux_messages_delivered_total", byTransport));
        assertTrue(family(after, "bayeux_messages_received", "counter").value("bayeux_messages_received_total", byTransport)
                - family(before, "bayeux_messages_received", "counter").value("bayeux_messages_received_total", byTransport) >= PUBLISHED);
        assertEquals(SUBSCRIBERS + 1, family(after, "bayeux_handshakes", "counter").value("bayeux_handshakes_total", "outcome", "success"));
        assertEquals(SUBSCRIBERS + 1, family(after, "bayeux_sessions", "gauge").value("bayeux_sessions", byTransport));
        assertTrue(family(after, "bayeux_subscriptions", "gauge").value("bayeux_subscriptions") >= SUBSCRIBERS);
        assertTrue(family(after, "bayeux_channels", "gauge").value("bayeux_channels") >= 1);
        assertTrue(family(after, "bayeux_connections", "gauge").value("bayeux_connections") >= SUBSCRIBERS + 1);
        family(after, "bayeux_connects_held", "gauge");
        // Between messages each client's /meta/connect waits at the server.
        Await.until(WAIT, () -> {
            try {
                return scrape().get("bayeux_connects_held").value("bayeux_connects_held") == SUBSCRIBERS + 1;
            } catch (Exception x) {
                throw new AssertionError(x);
            }
        }, () -> "every client's connect held");
        assertTrue(family(after, "bayeux_network_received_bytes", "counter").value("bayeux_network_received_bytes_total")
                > family(before, "bayeux_network_received_bytes", "counter").value("bayeux_network_received_bytes_total"));
        assertTrue(family(after, "bayeux_network_sent_bytes", "counter").value("bayeux_network_sent_bytes_total")
                > family(before, "bayeux_network_sent_bytes", "counter").value("bayeux_network_sent_bytes_total"));
        PrometheusParser.Family latency = family(after, "bayeux_delivery_latency_seconds", "histogram");
        assertTrue(latency.value("bayeux_delivery_latency_seconds_count") >= 1, "a frame carried publishes");
        assertEquals(latency.value("bayeux_delivery_latency_seconds_count"), latency.value("bayeux_delivery_latency_seconds_bucket", "le", "+Inf"));
        PrometheusParser.Family depth = family(after, "bayeux_queue_depth_messages", "histogram");
        // Every response reports its queue's depth; WebSocket frames one in 64 per event loop, its first included.
        assertTrue(depth.value("bayeux_queue_depth_messages_count") - family(before, "bayeux_queue_depth_messages", "histogram")
                .value("bayeux_queue_depth_messages_count") >= (transport.equals("websocket") ? 1 : SUBSCRIBERS));
        assertEquals(SUBSCRIBERS + 1, family(after, "bayeux_meta_handling_seconds", "histogram")
                .value("bayeux_meta_handling_seconds_count", "channel", "/meta/handshake"));
        assertEquals(0, family(after, "bayeux_publishes_refused", "counter").sum("bayeux_publishes_refused_total"));
        family(after, "bayeux_queue_overflows", "counter");
        family(after, "bayeux_eventloop_pending_tasks", "gauge");
        family(after, "bayeux_netty_direct_memory_used_bytes", "gauge");
        family(after, "netty_allocator_memory_used", "gauge");
        family(after, "jvm_memory_used_bytes", "gauge");
        family(after, "jvm_threads_live_threads", "gauge");

        clients.remove(publisher);
        publisher.disconnect();
        assertTrue(publisher.waitFor(WAIT, BayeuxClient.State.DISCONNECTED));
        Await.until(WAIT, () -> {
            try {
                return scrape().get("bayeux_disconnects").value("bayeux_disconnects_total", "cause", "client") == 1;
            } catch (Exception x) {
                throw new AssertionError(x);
            }
        }, () -> "the client's disconnect counted");
        assertEquals(SUBSCRIBERS, scrape().get("bayeux_sessions").value("bayeux_sessions", byTransport));
    }
}
