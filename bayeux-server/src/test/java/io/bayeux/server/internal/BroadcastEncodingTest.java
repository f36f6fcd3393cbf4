package io.bayeux.server.internal;

import io.bayeux.api.Message;
import io.bayeux.common.json.JacksonJsonCodec;
import io.bayeux.common.json.JsonCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A broadcast is serialized once, whatever the number of recipients. */
class BroadcastEncodingTest {
    private BayeuxServerImpl server;

    @AfterEach
    void stop() {
        server.stop();
    }

    @Test
    void aBroadcastIsEncodedOnceForAllItsSubscribers() {
        CountingCodec codec = new CountingCodec();
        server = new BayeuxServerImpl(new ManualScheduler().config()
                .executor(Runnable::run).jsonCodec(codec).build()).start();
        List<TestClient> subscribers = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            TestClient client = new TestClient(server, true).connected();
            client.subscribe("/stock/quotes");
            subscribers.add(client);
        }
        TestClient publisher = new TestClient(server, true).connected();
        codec.encodedData.set(0);

        publisher.publish("/stock/quotes", Map.of("symbol", "ACME", "price", 42));

        for (TestClient subscriber : subscribers) {
            assertEquals("ACME", ((Map<?, ?>) subscriber.nextPushed().get("data")).get("symbol"));
        }
        assertEquals(1, codec.encodedData.get(), "the message with data was encoded once for 20 recipients");
    }

    /** Counts how many times a message carrying data is encoded. */
    private static final class CountingCodec implements JsonCodec {
        private final JsonCodec delegate = new JacksonJsonCodec();
        final AtomicInteger encodedData = new AtomicInteger();

        @Override
        public <M extends Message.Mutable> List<M> decode(byte[] json, Supplier<M> factory) throws JsonException {
            return delegate.decode(json, factory);
        }

        @Override
        public byte[] encode(Message message) throws JsonException {
            if (message.getData() != null) {
                encodedData.incrementAndGet();
            }
            return delegate.encode(message);
        }

        @Override
        public Object parse(byte[] json) throws JsonException {
            return delegate.parse(json);
        }

        @Override
        public byte[] write(Object value) throws JsonException {
            return delegate.write(value);
        }
    }
}
