package io.bayeux.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.bayeux.transport.HttpRoute;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;

/**
 * The metrics and health endpoints on a port of their own (made by
 * {@link MetricsEndpoints#startAdminServer}), served by the JDK's own HTTP server: an admin
 * port carries a scrape a second at most, which needs neither Netty's pipeline nor another
 * dependency. Requests run on one thread of its own, one at a time.
 *
 * <p>Thread-safe; {@link #close()} stops it, at once.
 */
public final class AdminServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AdminServer.class);

    private final HttpServer http;
    private final ExecutorService executor;

    private AdminServer(HttpServer http, ExecutorService executor) {
        this.http = http;
        this.executor = executor;
    }

    static AdminServer start(String host, int port, Map<String, HttpRoute> routes) throws IOException {
        HttpServer http = HttpServer.create(new InetSocketAddress(host, port), 16);
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
            Thread thread = new Thread(r, "bayeux-admin-" + port);
            thread.setDaemon(true);
            return thread;
        });
        http.setExecutor(executor);
        routes.forEach((path, route) -> http.createContext(path, exchange -> answer(path, route, exchange)));
        http.start();
        AdminServer server = new AdminServer(http, executor);
        LOG.info("Admin endpoints on {}: {}", server.uri(), routes.keySet());
        return server;
    }

    private static void answer(String path, HttpRoute route, HttpExchange exchange) throws IOException {
        try (exchange) {
            // A context serves its sub-paths too: only the exact path is the route's.
            if (!exchange.getRequestURI().getPath().equals(path)) {
                send(exchange, HttpRoute.Reply.text(404, "Not Found"));
                return;
            }
            HttpRoute.Reply reply;
            try (InputStream body = exchange.getRequestBody()) {
                reply = route.answer(new HttpRoute.Request(exchange.getRequestMethod().toUpperCase(Locale.ROOT), path, Map.of(),
                        headers(exchange), body.readAllBytes(), exchange.getRemoteAddress()));
            } catch (Exception x) {
                LOG.warn("Route {} failed", path, x);
                reply = HttpRoute.Reply.text(500, "Internal Server Error");
            }
            send(exchange, reply);
        }
    }

    private static Map<String, String> headers(HttpExchange exchange) {
        return exchange.getRequestHeaders().entrySet().stream().collect(Collectors.toMap(
                e -> e.getKey().toLowerCase(Locale.ROOT), e -> String.join(", ", e.getValue()), (a, b) -> a + ", " + b));
    }

    private static void send(HttpExchange exchange, HttpRoute.Reply reply) throws IOException {
        if (reply.contentType() != null) {
            exchange.getResponseHeaders().set("Content-Type", reply.contentType());
        }
        reply.headers().forEach((name, value) -> exchange.getResponseHeaders().set(name, value));
        boolean head = exchange.getRequestMethod().equalsIgnoreCase("HEAD");
        exchange.sendResponseHeaders(reply.status(), head || reply.body().length == 0 ? -1 : reply.body().length);
        if (!head && reply.body().length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(reply.body());
            }
        }
    }

    /** The bound port. */
    public int port() {
        return http.getAddress().getPort();
    }

    /** Where it listens, e.g. {@code http://127.0.0.1:9090}. */
    public URI uri() {
        InetSocketAddress address = http.getAddress();
        String host = address.getHostString();
        return URI.create("http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + address.getPort());
    }

    /** Stops serving, at once. */
    @Override
    public void close() {
        http.stop(0);
        executor.shutdownNow();
    }

    @Override
    public String toString() {
        return "AdminServer[" + http.getAddress() + "]";
    }
}
