package io.bayeux.oort;

import io.bayeux.api.Message;
import io.bayeux.api.client.ClientSessionChannel;
import io.bayeux.client.BayeuxClient;
import io.bayeux.client.ClientConfig;
import io.bayeux.client.transport.LongPollingTransport;
import io.bayeux.client.transport.WebSocketTransport;
import io.bayeux.testing.Await;
import io.bayeux.transport.NettyBayeuxServer;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the Oort tests share: nodes on loopback port 0, clients, bounded waits. */
public final class OortTesting {
    /** The longest a step waits: generous, for a 2-core machine shared with other builds. */
    public static final Duration WAIT = Duration.ofSeconds(40);
    public static final String SECRET = "test secret";

    private OortTesting() {
    }

    /** A started server and its started Oort, with a short failure timeout. */
    public record Node(NettyBayeuxServer server, Oort oort) implements AutoCloseable {
        public String url() {
            return oort.getURL();
        }

        @Override
        public void close() {
            try {
                oort.stop();
            } finally {
                server.stop();
            }
        }
    }

    public static Node node(String secret, Duration failureTimeout, String... observed) {
        return node(true, secret, failureTimeout, observed);
    }

    /** A node whose links use WebSocket ({@code websocket}) or long-polling only. */
    public static Node node(boolean websocket, String secret, Duration failureTimeout, String... observed) {
        return node(0, websocket, secret, failureTimeout, observed);
    }

    /** A node on {@code port} (0: any free one), as a node restarted at its URL is. */
    public static Node node(int port, boolean websocket, String secret, Duration failureTimeout, String... observed) {
        NettyBayeuxServer server = NettyBayeuxServer.builder().host("127.0.0.1").port(port).build().start();
        Oort oort = new Oort(server.bayeux(), server.uri().toString());
        oort.setSecret(secret);
        oort.setFailureTimeout(failureTimeout);
        oort.setMaxBackoff(Duration.ofSeconds(1));
        oort.setClientWebSocket(websocket);
        for (String channel : observed) {
            oort.observeChannel(channel);
        }
        oort.start();
        return new Node(server, oort);
    }

    public static Node node(String... observed) {
        return node(SECRET, Duration.ofSeconds(6), observed);
    }

    /** Waits until each of {@code nodes} knows every other one, and only them. */
    public static void awaitMesh(Node... nodes) throws InterruptedException {
        for (Node node : nodes) {
            Set<String> others = new HashSet<>();
            for (Node other : nodes) {
                if (other != node) {
                    others.add(other.url());
                }
            }
            await(node.url() + " to know " + others, () -> node.oort().getKnownComets().equals(others));
        }
    }

    /** Waits until {@code condition} holds, at most {@link #WAIT}: {@link Await#until} with this module's timeout. */
    public static void await(String what, BooleanSupplier condition) {
        Await.until(WAIT, condition, () -> what);
    }

    /**
     * Waits until each node's Oort thread ran what was queued on it so far, and what those tasks
     * queued in turn (a handshake handled there may remove a session, whose end is handled there
     * next): what a node does about the events so far, its listeners included, is done.
     */
    public static void settle(Node... nodes) throws InterruptedException {
        for (int round = 0; round < 2; round++) {
            for (Node node : nodes) {
                CountDownLatch ran = new CountDownLatch(1);
                node.oort().post(ran::countDown);
                assertTrue(ran.await(WAIT.toMillis(), TimeUnit.MILLISECONDS), () -> node.url() + "'s Oort thread is stuck");
            }
        }
    }

    /** A connected client, over {@code transport} ("websocket" or "long-polling"). */
    public static BayeuxClient client(String url, String transport) throws InterruptedException {
        ClientConfig config = ClientConfig.builder().build();
        BayeuxClient client = "long-polling".equals(transport)
                ? new BayeuxClient(url, config, new LongPollingTransport(config))
                : new BayeuxClient(url, config, new WebSocketTransport(config));
        client.handshake();
        assertTrue(client.waitFor(WAIT, BayeuxClient.State.CONNECTED), () -> "not connected: " + client);
        return client;
    }

    /** Subscribes and waits for the reply; returns it. */
    public static Message subscribe(BayeuxClient client, String channel, ClientSessionChannel.MessageListener listener) throws InterruptedException {
        BlockingQueue<Message> reply = new LinkedBlockingQueue<>();
        client.getChannel(channel).subscribe(listener, reply::add);
        return next(reply);
    }

    /** Publishes and waits for the reply; returns it. */
    public static Message publish(BayeuxClient client, String channel, Object data) throws InterruptedException {
        BlockingQueue<Message> reply = new LinkedBlockingQueue<>();
        client.getChannel(channel).publish(data, reply::add);
        return next(reply);
    }

    public static <T> T next(BlockingQueue<T> queue) throws InterruptedException {
        T element = queue.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertNotNull(element, "nothing arrived within " + WAIT);
        return element;
    }
}
