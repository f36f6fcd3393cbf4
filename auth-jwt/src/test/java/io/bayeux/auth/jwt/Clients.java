package io.bayeux.auth.jwt;

import io.bayeux.api.Message;
import io.bayeux.client.BayeuxClient;
import io.bayeux.client.ClientConfig;
import io.bayeux.client.transport.ClientTransport;
import io.bayeux.client.transport.LongPollingTransport;
import io.bayeux.client.transport.WebSocketTransport;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertNotNull;

/** The Java client over one transport, and bounded waits. */
final class Clients {
    /** The longest any single step of a test waits. */
    static final Duration WAIT = Duration.ofSeconds(10);

    private Clients() {
    }

    static BayeuxClient client(URI url, String transport, ClientConfig config) {
        ClientTransport chosen = switch (transport) {
            case WebSocketTransport.NAME -> new WebSocketTransport(config);
            case LongPollingTransport.NAME -> new LongPollingTransport(config);
            default -> throw new IllegalArgumentException("Unknown transport: " + transport);
        };
        return new BayeuxClient(url.toString(), config, chosen);
    }

    /** Handshakes and returns the reply. */
    static Message handshake(BayeuxClient client) throws InterruptedException {
        BlockingQueue<Message> reply = new LinkedBlockingQueue<>();
        client.handshake(null, reply::add);
        return next(reply);
    }

    static <T> T next(BlockingQueue<T> queue) throws InterruptedException {
        T element = queue.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertNotNull(element, "nothing arrived within " + WAIT);
        return element;
    }
}
