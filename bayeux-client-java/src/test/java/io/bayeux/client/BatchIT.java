package io.bayeux.client;

import io.bayeux.api.server.ServerChannel;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.stream.IntStream;

import static io.bayeux.client.Clients.next;
import static io.bayeux.client.Clients.subscribe;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@code batch(Runnable)}: what it publishes leaves as one network batch and arrives in order. */
class BatchIT {
    @RegisterExtension
    final ServerAndClients fixture = new ServerAndClients();
    private final ClientConfig config = ClientConfig.builder().build();

    @BeforeEach
    void start() {
        fixture.start();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void tenPublishesInABatchLeaveInOneSendAndArriveTogetherInOrder(String transport) throws Exception {
        List<Object> serverReceived = Collections.synchronizedList(new ArrayList<>());
        fixture.server().bayeux().createChannelIfAbsent("/batch").getReference()
                .addListener((ServerChannel.MessageListener) (from, channel, message) -> serverReceived.add(message.getData()));
        RecordingTransport recording = new RecordingTransport(Clients.transport(transport, config));
        BayeuxClient publisher = fixture.client(recording, config);
        BayeuxClient subscriber = fixture.client(transport, config);
        Clients.connect(publisher);
        Clients.connect(subscriber);
        BlockingQueue<Object> received = new LinkedBlockingQueue<>();
        subscribe(subscriber, "/batch", (channel, message) -> received.add(message.getData()));

        publisher.batch(() -> {
            for (int i = 0; i < 10; i++) {
                publisher.getChannel("/batch").publish(i);
            }
        });

        List<Object> got = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            got.add(next(received));
        }
        List<Object> expected = IntStream.range(0, 10).<Object>mapToObj(Integer::valueOf).toList();
        assertEquals(expected, got);
        assertEquals(expected, List.copyOf(serverReceived));
        List<List<String>> batches = recording.sendsWith("/batch");
        assertEquals(1, batches.size(), () -> "the publishes went in " + batches.size() + " sends: " + batches);
        assertEquals(10, batches.getFirst().stream().filter("/batch"::equals).count(), () -> "batch: " + batches.getFirst());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void withoutABatchEachPublishIsSentOnItsOwn(String transport) throws Exception {
        RecordingTransport recording = new RecordingTransport(Clients.transport(transport, config));
        BayeuxClient publisher = fixture.client(recording, config);
        Clients.connect(publisher);
        BlockingQueue<Object> replies = new LinkedBlockingQueue<>();

        for (int i = 0; i < 3; i++) {
            publisher.getChannel("/single").publish(i, replies::add);
            next(replies);
        }

        assertEquals(List.of(List.of("/single"), List.of("/single"), List.of("/single")), recording.sendsWith("/single"));
    }

    @org.junit.jupiter.api.Test
    void anOpenBatchDoesNotHoldBackTheConnectLoop() throws Exception {
        // Over long-polling deliveries ride connect replies: a connect stuck in the application's batch
        // would stop them until the batch ends.
        BayeuxClient client = fixture.client("long-polling", config);
        Clients.connect(client);
        BlockingQueue<Object> received = new LinkedBlockingQueue<>();
        subscribe(client, "/news", (channel, message) -> received.add(message.getData()));
        var news = fixture.server().bayeux().getChannel("/news");

        client.startBatch();
        try {
            news.publish(null, "first", io.bayeux.api.Promise.noop());
            assertEquals("first", next(received));
            // The connect that follows "first" goes while the batch is still open.
            news.publish(null, "second", io.bayeux.api.Promise.noop());
            assertEquals("second", next(received));
        } finally {
            client.endBatch();
        }
    }
}
