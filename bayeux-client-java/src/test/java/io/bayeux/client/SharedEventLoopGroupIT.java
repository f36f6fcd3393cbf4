package io.bayeux.client;

import io.bayeux.api.Message;
import io.bayeux.api.Promise;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.client.ext.AckExtension;
import io.bayeux.client.transport.LongPollingTransport;
import io.bayeux.api.server.ServerSession;
import io.bayeux.server.ext.AcknowledgedMessagesExtension;
import io.bayeux.server.ext.AcknowledgedMessagesSessionExtension;
import io.bayeux.testing.Await;
import io.netty.channel.EventLoopGroup;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;

import static io.bayeux.client.Clients.subscribe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Clients on an event-loop group of several threads, as the load tool runs them: each client's
 * replies are handled one at a time, in order, and its next {@code /meta/connect} carries what
 * the previous reply's extensions took from it.
 */
class SharedEventLoopGroupIT {
    private static final int COUNT = 500;

    @RegisterExtension
    final ServerAndClients fixture = new ServerAndClients();
    private final EventLoopGroup group = fixture.eventLoopGroup(4);
    private final ClientConfig config = ClientConfig.builder().eventLoopGroup(group).build();

    @BeforeEach
    void start() {
        fixture.start().bayeux().addExtension(new AcknowledgedMessagesExtension());
    }

    private BayeuxClient connected(String transport) {
        return fixture.client(transport, config);
    }

    /** Waits (bounded) until every list holds {@code count} elements or more. */
    private static void awaitSizes(List<List<Integer>> lists, int count) {
        Await.until(Duration.ofSeconds(60), () -> lists.stream().allMatch(l -> l.size() >= count),
                () -> count + " in each list; sizes " + lists.stream().map(List::size).toList());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    @Timeout(120)
    void acknowledgedDeliveryOnAManyThreadGroupBringsNoDuplicate(String transport) throws Exception {
        int subscribers = 20;
        List<List<Integer>> received = new ArrayList<>();
        List<String> clientIds = new ArrayList<>();
        for (int i = 0; i < subscribers; i++) {
            BayeuxClient client = connected(transport);
            AckExtension ack = new AckExtension();
            client.addExtension(ack);
            Clients.connect(client);
            assertTrue(ack.isServerSupportingAcks());
            clientIds.add(client.getId());
            List<Integer> mine = new CopyOnWriteArrayList<>();
            received.add(mine);
            subscribe(client, "/acked", (channel, message) -> mine.add(((Number) message.getData()).intValue()));
        }

        ServerChannel channel = fixture.server().bayeux().getChannel("/acked");
        for (int i = 0; i < COUNT; i++) {
            channel.publish(null, i, Promise.noop());
            if (i % 10 == 9) {
                Thread.sleep(1); // many small batches: many connect replies, each followed by the next connect
            }
        }
        awaitSizes(received, COUNT);
        // A duplicate is a message sent again because the server has no acknowledgement of it: once
        // every session acknowledged everything and has nothing queued, nothing can come again.
        for (String clientId : clientIds) {
            ServerSession session = fixture.server().bayeux().getSession(clientId);
            AcknowledgedMessagesSessionExtension acks = AcknowledgedMessagesExtension.sessionExtension(session);
            Await.until(Duration.ofSeconds(30), () -> acks.unacknowledgedCount() == 0 && session.getQueueSize() == 0,
                    () -> clientId + " to acknowledge everything: " + acks.unacknowledgedCount() + " not, " + session.getQueueSize() + " queued");
        }
        for (int i = 0; i < subscribers; i++) {
            List<Integer> got = List.copyOf(received.get(i));
            assertEquals(IntStream.range(0, COUNT).boxed().toList(), got,
                    "subscriber " + i + ": each message once, in order (" + got.size() + " arrived, " + got.stream().distinct().count() + " distinct)");
        }
    }

    @Test
    @Timeout(120)
    void longPollingClientsHandleTheirResponsesOneAtATimeOnOneLoopAndSubscribersGetOnePublishersMessagesInOrder() throws Exception {
        // The publisher is subscribed too: its messages come back in its publish replies and in
        // its held connect's replies, read on two connections.
        List<List<Integer>> received = new ArrayList<>();
        AtomicInteger overlaps = new AtomicInteger();
        List<Set<Thread>> threads = new ArrayList<>();
        BayeuxClient publisher = Clients.connect(connected(LongPollingTransport.NAME));
        List<BayeuxClient> receivers = new ArrayList<>(List.of(publisher));
        for (int i = 0; i < 4; i++) {
            receivers.add(Clients.connect(connected(LongPollingTransport.NAME)));
        }
        for (BayeuxClient receiver : receivers) {
            List<Integer> mine = new CopyOnWriteArrayList<>();
            received.add(mine);
            AtomicInteger inListener = new AtomicInteger();
            Set<Thread> mineThreads = ConcurrentHashMap.newKeySet();
            threads.add(mineThreads);
            subscribe(receiver, "/ordered", (channel, message) -> {
                mineThreads.add(Thread.currentThread());
                if (inListener.incrementAndGet() > 1) {
                    overlaps.incrementAndGet();
                }
                mine.add(((Number) message.getData()).intValue());
                // An application that takes a little time per message: another response may
                // arrive meanwhile, and must wait until this one has been handled.
                LockSupport.parkNanos(100_000);
                inListener.decrementAndGet();
            });
        }
        BlockingQueue<Message> replies = new LinkedBlockingQueue<>();
        // As the load tool publishes: Bayeux batches of 10, one after the other.
        for (int i = 0; i < COUNT; i += 10) {
            publisher.startBatch();
            for (int j = i; j < i + 10; j++) {
                publisher.getChannel("/ordered").publish(j, replies::add);
            }
            publisher.endBatch();
            for (int j = 0; j < 10; j++) {
                Message reply = Clients.next(replies);
                assertTrue(reply.isSuccessful(), () -> "publish failed: " + reply);
            }
        }
        awaitSizes(received, COUNT);
        assertEquals(0, overlaps.get(), "a client's listener never runs for two responses at once");
        for (int i = 0; i < threads.size(); i++) {
            assertEquals(1, threads.get(i).size(), "client " + i + " handles its responses on its one event loop: " + threads.get(i));
        }
        // The subscribers get everything in the connect replies, one after the other: in order.
        for (int i = 1; i < received.size(); i++) {
            assertEquals(IntStream.range(0, COUNT).boxed().toList(), List.copyOf(received.get(i)), "subscriber " + i + ": all, once, in order");
        }
        // The publisher gets its messages back in its publish replies and in its connect replies,
        // read on two connections: each response in order, but one response may overtake another.
        assertEquals(IntStream.range(0, COUNT).boxed().toList(), received.get(0).stream().sorted().toList(), "the publisher: all, once");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    @Timeout(60)
    void whatIsPublishedWhileTheConnectionIsDownGoesOnceItIsBack(String transport) throws Exception {
        ClientConfig slow = ClientConfig.builder().eventLoopGroup(group)
                .backoffIncrement(java.time.Duration.ofSeconds(1)).maxBackoff(java.time.Duration.ofSeconds(1)).build();
        var cuttable = Clients.transport(transport, slow);
        BayeuxClient client = fixture.client(cuttable, slow);
        Clients.connect(client);
        BlockingQueue<Object> arrived = new LinkedBlockingQueue<>();
        subscribe(client, "/back", (channel, message) -> arrived.add(message.getData()));
        // A cut between two long-polls goes unnoticed (the next poll opens a new connection): cut again until one is.
        long cutDeadline = System.nanoTime() + Clients.WAIT.toNanos();
        boolean noticed = false;
        while (!noticed && System.nanoTime() - cutDeadline < 0) {
            cuttable.abort();
            noticed = client.waitFor(java.time.Duration.ofMillis(500), BayeuxClient.State.UNCONNECTED);
        }
        assertTrue(noticed, () -> "the cut was noticed: " + client);
        BlockingQueue<Message> reply = new LinkedBlockingQueue<>();
        client.getChannel("/back").publish(Map.of("n", 1), reply::add);
        Message published = Clients.next(reply);
        assertTrue(published.isSuccessful(), () -> "publish failed: " + published);
        assertEquals(1, ((Number) ((Map<?, ?>) Clients.next(arrived)).get("n")).intValue());
        assertTrue(client.waitFor(Clients.WAIT, BayeuxClient.State.CONNECTED));
    }
}
