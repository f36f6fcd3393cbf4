package io.bayeux.cluster.redis;

import io.bayeux.api.server.LocalSession;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.server.internal.BayeuxServerImpl;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a node hands to its local server of what arrives from Redis, without Redis. */
class InboundMessagesTest {
    private static final String ROOM = "/chat/room";

    /**
     * During a failover or a slot move a node is subscribed to a channel on two Redis
     * connections at once (the old owner's and the new one's), each read on its own Lettuce
     * thread, and a message may come on both. Each number is handed on once, and never after a
     * higher one: a copy that loses the race, or a message that comes after a later one, is
     * refused, and the gap counted lost.
     */
    @Test
    void twoConnectionsReceivingTheSameStreamAtOnceHandOnEachMessageOnceInOrder() throws Exception {
        BayeuxServerImpl bayeux = new BayeuxServerImpl();
        try {
            LinkedBlockingQueue<Long> delivered = new LinkedBlockingQueue<>();
            bayeux.createChannelIfAbsent(ROOM).getReference().addListener((ServerChannel.MessageListener) (from, channel, message) -> {
                delivered.add(((Number) ((Map<?, ?>) message.getData()).get("n")).longValue());
                return true;
            });
            LocalSession session = bayeux.newLocalSession("redis-cluster");
            session.handshake();
            InboundMessages inbound = new InboundMessages("this-node", bayeux, () -> session, () -> null, channel -> true, time -> { });
            inbound.open();
            int count = 100_000;
            List<String> stream = new ArrayList<>(count);
            for (long n = 1; n <= count; n++) {
                stream.add(new Envelope("other-node", ROOM, Map.of("n", n), n).encode());
            }
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> connections = new ArrayList<>();
            for (int c = 0; c < 2; c++) {
                Thread connection = new Thread(() -> {
                    try {
                        start.await();
                    } catch (InterruptedException x) {
                        return;
                    }
                    stream.forEach(inbound::arrived);
                }, "connection-" + c);
                connection.start();
                connections.add(connection);
            }
            start.countDown();
            for (Thread connection : connections) {
                connection.join(TimeUnit.SECONDS.toMillis(60));
            }
            inbound.shutdown();
            inbound.awaitTermination(60);

            List<Long> received = new ArrayList<>(delivered);
            for (int i = 1; i < received.size(); i++) {
                long previous = received.get(i - 1);
                long next = received.get(i);
                assertTrue(next > previous, () -> "in order and once each: " + next + " after " + previous);
            }
            assertEquals(received.size(), inbound.received(), "each one handed on counted");
            assertEquals(count, received.size() + inbound.lost(), "each message handed on or counted lost");
            assertEquals(2L * count, received.size() + inbound.duplicates(), "every other copy refused and counted");
        } finally {
            bayeux.stop();
        }
    }
}
