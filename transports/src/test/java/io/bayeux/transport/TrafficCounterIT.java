package io.bayeux.transport;

import io.bayeux.server.internal.BayeuxServerImpl;
import io.bayeux.server.spi.ServerObserver;
import io.bayeux.testing.Await;
import io.bayeux.transport.internal.TrafficCounter;
import io.netty.channel.Channel;
import org.junit.jupiter.api.Test;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Bytes are counted only on the connections of an observed server: an unobserved one has no counter in its pipelines. */
class TrafficCounterIT {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private static HttpResponse<String> get(HttpClient http, NettyBayeuxServer server) throws Exception {
        return http.send(HttpRequest.newBuilder(server.uri().resolve("/nothing-here")).timeout(WAIT).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void anUnobservedServerHasNoCounterAndAnObservedOneCountsBothWays() throws Exception {
        AtomicLong read = new AtomicLong();
        AtomicLong written = new AtomicLong();
        ServerObserver observer = new ServerObserver() {
            @Override
            public void bytesRead(long bytes) {
                read.addAndGet(bytes);
            }

            @Override
            public void bytesWritten(long bytes) {
                written.addAndGet(bytes);
            }
        };
        try (NettyBayeuxServer server = NettyBayeuxServer.builder().host("127.0.0.1").port(0).build().start();
             HttpClient http = HttpClient.newBuilder().connectTimeout(WAIT).build()) {
            assertEquals(404, get(http, server).statusCode());
            Await.until(WAIT, () -> server.connectionCount() == 1, () -> "one connection: " + server.channels());
            for (Channel channel : server.channels()) {
                assertNull(channel.pipeline().get(TrafficCounter.NAME), () -> "unobserved: " + channel.pipeline().names());
            }

            ((BayeuxServerImpl) server.bayeux()).observe(observer);
            try (HttpClient other = HttpClient.newBuilder().connectTimeout(WAIT).build()) {
                HttpResponse<String> response = get(other, server);
                assertEquals(404, response.statusCode());
                Await.until(WAIT, () -> server.connectionCount() == 2, () -> "two connections: " + server.channels());
                long counted = server.channels().stream().filter(c -> c.pipeline().get(TrafficCounter.NAME) != null).count();
                assertEquals(1, counted, "only the connection opened while observed counts");
                Await.until(WAIT, () -> written.get() >= response.body().length(), () -> "written: " + written);
                assertTrue(read.get() > "GET /nothing-here HTTP/1.1\r\n".length(), () -> "read: " + read);
                assertNotNull(((BayeuxServerImpl) server.bayeux()).observer());
            }
        }
    }
}
