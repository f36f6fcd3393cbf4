package io.bayeux.client;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static io.bayeux.client.Clients.subscribe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Messages from one publisher reach a subscriber in the order they were published. */
class OrderedDeliveryIT {
    private static final int COUNT = 1000;

    @RegisterExtension
    final ServerAndClients fixture = new ServerAndClients();
    private final ClientConfig config = ClientConfig.builder().build();

    @BeforeEach
    void start() {
        fixture.start();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void aThousandMessagesArriveInTheOrderTheyWerePublished(String transport) throws Exception {
        BayeuxClient publisher = fixture.client(transport, config);
        BayeuxClient subscriber = fixture.client(transport, config);
        Clients.connect(publisher);
        Clients.connect(subscriber);
        List<Object> received = new CopyOnWriteArrayList<>();
        CountDownLatch all = new CountDownLatch(COUNT);
        subscribe(subscriber, "/ordered", (channel, message) -> {
            received.add(message.getData());
            all.countDown();
        });

        for (int i = 0; i < COUNT; i++) {
            publisher.getChannel("/ordered").publish(i);
        }

        assertTrue(all.await(30, TimeUnit.SECONDS), () -> received.size() + " of " + COUNT + " arrived");
        assertEquals(IntStream.range(0, COUNT).boxed().toList(), received.stream().map(n -> ((Number) n).intValue()).toList());
    }
}
