package io.bayeux.spring;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bayeux.api.Message;
import io.bayeux.client.BayeuxClient;
import io.bayeux.client.ClientConfig;
import io.bayeux.client.transport.WebSocketTransport;
import io.bayeux.server.spi.ReadinessCheck;
import io.bayeux.testing.Await;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An application with Spring Boot Actuator, its endpoints served over HTTP on a free port: a
 * message through this project's Java client is counted in {@code /actuator/prometheus} and
 * {@code /actuator/metrics}, and {@code /actuator/health} has the {@code bayeux} component, UP
 * while the server serves and its readiness checks pass, OUT_OF_SERVICE when one fails, DOWN
 * once the server stops.
 */
class SpringActuatorIT {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final Pattern DELIVERED = Pattern.compile("(?m)^bayeux_messages_delivered_total\\{[^}]*} ([0-9.E]+)$");

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(WAIT).build();
    private ConfigurableApplicationContext context;
    private BayeuxClient client;
    private String actuator;

    /** A readiness check of the application's, which the test turns off. */
    @Configuration(proxyBeanMethods = false)
    static class Checks {
        static final AtomicBoolean READY = new AtomicBoolean(true);

        @Bean
        ReadinessCheck downstream() {
            return new ReadinessCheck() {
                @Override
                public String name() {
                    return "downstream";
                }

                @Override
                public Result check() {
                    return READY.get() ? Result.READY : Result.notReady("the downstream service is away");
                }
            };
        }
    }

    @BeforeEach
    void start() {
        Checks.READY.set(true);
        // Arguments, not default properties: they win over the tests' application.properties, which turns the web server off.
        context = new SpringApplicationBuilder(GreeterApplication.class, Checks.class)
                .run("--bayeux.port=0", "--server.port=0", "--server.address=127.0.0.1", "--spring.main.web-application-type=servlet",
                        "--management.endpoints.web.exposure.include=health,metrics,prometheus",
                        "--management.endpoint.health.show-details=always", "--management.endpoint.health.probes.enabled=true",
                        "--management.endpoint.health.group.readiness.include=readinessState,bayeux");
        actuator = "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port") + "/actuator";
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        context.close();
    }

    @Test
    void aDeliveredMessageIsCountedInPrometheusAndTheMetricsEndpoint() throws Exception {
        double before = delivered(get("/prometheus").body());
        int port = context.getBean(NettyBayeuxServer.class).port();
        ClientConfig config = ClientConfig.builder().build();
        client = new BayeuxClient("http://127.0.0.1:" + port + "/cometd", config, new WebSocketTransport(config));
        client.handshake();
        assertTrue(client.waitFor(WAIT, BayeuxClient.State.CONNECTED), () -> "not connected: " + client);
        BlockingQueue<Message> greetings = new LinkedBlockingQueue<>();
        BlockingQueue<Message> subscribed = new LinkedBlockingQueue<>();
        client.getChannel("/greet/out").subscribe((channel, message) -> greetings.add(message), subscribed::add);
        assertTrue(next(subscribed).isSuccessful());
        client.getChannel("/greet/in").publish("carol");
        assertEquals("hello, carol", next(greetings).getData());

        Await.until(WAIT, () -> delivered(getUnchecked("/prometheus")) > before, () -> "bayeux_messages_delivered_total above " + before);
        HttpResponse<String> metric = get("/metrics/bayeux.messages.delivered");
        assertEquals(200, metric.statusCode(), metric::body);
        assertTrue(metric.body().contains("\"name\":\"bayeux.messages.delivered\""), metric::body);
    }

    @Test
    void theBayeuxHealthComponentFollowsTheServerAndItsReadinessChecks() throws Exception {
        HttpResponse<String> up = get("/health/bayeux");
        assertEquals(200, up.statusCode(), up::body);
        JsonNode upHealth = JSON.readTree(up.body());
        assertEquals("UP", upHealth.path("status").asText(), up::body);
        assertTrue(upHealth.path("details").path("checks").path("downstream").path("ready").asBoolean(), up::body);
        assertEquals(200, get("/health/readiness").statusCode());
        HttpResponse<String> whole = get("/health");
        assertEquals("UP", JSON.readTree(whole.body()).path("components").path("bayeux").path("status").asText(), whole::body);

        Checks.READY.set(false);
        HttpResponse<String> notReady = get("/health/bayeux");
        assertEquals(503, notReady.statusCode(), notReady::body);
        JsonNode notReadyHealth = JSON.readTree(notReady.body());
        assertEquals("OUT_OF_SERVICE", notReadyHealth.path("status").asText(), notReady::body);
        assertEquals("the downstream service is away",
                notReadyHealth.path("details").path("checks").path("downstream").path("detail").asText(), notReady::body);
        assertEquals(503, get("/health/readiness").statusCode(), "the readiness group has the bayeux component");
        assertEquals(200, get("/health/liveness").statusCode(), "liveness does not");

        Checks.READY.set(true);
        context.getBean(NettyBayeuxServer.class).stop();
        HttpResponse<String> down = get("/health/bayeux");
        assertEquals(503, down.statusCode(), down::body);
        assertEquals("DOWN", JSON.readTree(down.body()).path("status").asText(), down::body);
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(actuator + path)).timeout(WAIT).build(), HttpResponse.BodyHandlers.ofString());
    }

    private String getUnchecked(String path) {
        try {
            return get(path).body();
        } catch (IOException | InterruptedException x) {
            throw new IllegalStateException(x);
        }
    }

    /** The sum of the counter's series; 0 while it has none. */
    private static double delivered(String scrape) {
        Matcher matcher = DELIVERED.matcher(scrape);
        double sum = 0;
        while (matcher.find()) {
            sum += Double.parseDouble(matcher.group(1));
        }
        return sum;
    }

    private static Message next(BlockingQueue<Message> queue) throws InterruptedException {
        Message message = queue.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertNotNull(message, "nothing within " + WAIT);
        return message;
    }
}
