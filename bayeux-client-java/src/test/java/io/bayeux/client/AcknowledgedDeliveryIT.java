package io.bayeux.client;

import io.bayeux.api.Promise;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.client.ext.AckExtension;
import io.bayeux.server.ext.AcknowledgedMessagesExtension;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static io.bayeux.client.Clients.subscribe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Acknowledged delivery across dropped connections: with the ack extensions on both sides,
 * every message published while the client's connections keep being cut arrives exactly once.
 */
class AcknowledgedDeliveryIT {
    private static final int COUNT = 200;

    private final ClientConfig config = ClientConfig.builder()
            .backoffIncrement(Duration.ofMillis(50))
            .maxBackoff(Duration.ofMillis(200))
            .build();
    private NettyBayeuxServer server;
    private BayeuxClient client;

    @BeforeEach
    void start() {
        server = NettyBayeuxServer.builder().port(0).build().start();
        server.bayeux().addExtension(new AcknowledgedMessagesExtension());
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        server.stop();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void everyMessageArrivesExactlyOnceWhileConnectionsAreCut(String transport) throws Exception {
        RecordingTransport recording = new RecordingTransport(Clients.transport(transport, config));
        client = Clients.client(server.uri(), config, recording);
        AckExtension ack = new AckExtension();
        client.addExtension(ack);
        Clients.connect(client);
        assertTrue(ack.isServerSupportingAcks());
        List<Integer> received = new CopyOnWriteArrayList<>();
        CountDownLatch all = new CountDownLatch(COUNT);
        subscribe(client, "/acked", (channel, message) -> {
            int n = ((Number) message.getData()).intValue();
            received.add(n);
            all.countDown();
            if (received.size() % 30 == 0) {
                // In the middle of a batch: what follows in it is delivered, the next reply may be lost.
                recording.cut();
            }
        });

        ServerChannel channel = server.bayeux().getChannel("/acked");
        for (int i = 0; i < COUNT; i++) {
            channel.publish(null, i, Promise.noop());
            if (i % 20 == 10) {
                recording.cut();
            }
        }

        boolean done = all.await(30, TimeUnit.SECONDS);
        assertEquals(IntStream.range(0, COUNT).boxed().toList(), List.copyOf(received),
                () -> "arrived " + received.size() + (done ? "" : " (gave up waiting)") + ", distinct " + received.stream().distinct().count());
        assertTrue(client.waitFor(Clients.WAIT, BayeuxClient.State.CONNECTED));
    }
}
