package io.bayeux.auth.jwt;

import com.nimbusds.jose.jwk.JWKSet;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/** A JWK set served on loopback by the JDK's HttpServer, counting its fetches. */
final class JwksServer implements AutoCloseable {
    private final HttpServer server;
    private final AtomicReference<JWKSet> keys;
    private final AtomicInteger fetches = new AtomicInteger();

    JwksServer(JWKSet keys) throws IOException {
        this.keys = new AtomicReference<>(keys);
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/jwks.json", exchange -> {
            fetches.incrementAndGet();
            byte[] body = this.keys.get().toString(true).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/jwks.json");
    }

    /** Publishes another key set (a key rotation). */
    void publish(JWKSet keys) {
        this.keys.set(keys);
    }

    int fetches() {
        return fetches.get();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
