package io.bayeux.client;

import io.bayeux.api.Message;
import io.bayeux.client.transport.ClientTransport;
import io.bayeux.client.transport.LongPollingTransport;
import io.bayeux.client.transport.WebSocketTransport;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the client ITs share: transports by name, connected clients, bounded waits. */
final class Clients {
    /** The longest any single step of a test waits. */
    static final Duration WAIT = Duration.ofSeconds(10);

    private Clients() {
    }

    /** A new transport by its Bayeux name. */
    static ClientTransport transport(String name, ClientConfig config) {
        return switch (name) {
            case WebSocketTransport.NAME -> new WebSocketTransport(config);
            case LongPollingTransport.NAME -> new LongPollingTransport(config);
            default -> throw new IllegalArgumentException("Unknown transport: " + name);
        };
    }

    /** A client on {@code url} that only uses {@code transport}. */
    static BayeuxClient client(URI url, ClientConfig config, ClientTransport transport) {
        return new BayeuxClient(url.toString(), config, transport);
    }

    /** Handshakes and waits for the first successful connect. */
    static BayeuxClient connect(BayeuxClient client) throws InterruptedException {
        client.handshake();
        assertTrue(client.waitFor(WAIT, BayeuxClient.State.CONNECTED), () -> "not connected: " + client);
        return client;
    }

    /** The next element, waiting at most {@link #WAIT}. */
    static <T> T next(BlockingQueue<T> queue) throws InterruptedException {
        T element = queue.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertNotNull(element, "nothing arrived within " + WAIT);
        return element;
    }

    /** Subscribes and waits for the successful reply. */
    static void subscribe(BayeuxClient client, String channel, io.bayeux.api.client.ClientSessionChannel.MessageListener listener)
            throws InterruptedException {
        BlockingQueue<Message> reply = new java.util.concurrent.LinkedBlockingQueue<>();
        client.getChannel(channel).subscribe(listener, reply::add);
        Message message = next(reply);
        assertTrue(message.isSuccessful(), () -> "subscribe to " + channel + " failed: " + message);
    }
}
