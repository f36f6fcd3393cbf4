package io.bayeux.server.internal;

import io.bayeux.testing.MutableClock;
import io.bayeux.api.Message;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.server.ext.TimestampExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Queue shaping with a {@link ServerSession.DeQueueListener}: stock quotes are coalesced so
 * that a slow client gets at most one quote per symbol per second, using the time the
 * {@link TimestampExtension} stamped on each quote.
 */
class DeQueueListenerCoalescingTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-21T06:02:00.000Z"));
    private BayeuxServerImpl server;

    @BeforeEach
    void start() {
        server = new BayeuxServerImpl(scheduler.config().executor(Runnable::run).build()).start();
        server.addExtension(new TimestampExtension(TimestampExtension.DEFAULT_FORMATTER, clock));
    }

    @AfterEach
    void stop() {
        server.stop();
    }

    @Test
    void onlyTheFirstQuoteOfASymbolWithinTheWindowIsDelivered() {
        TestClient trader = new TestClient(server, false).connected();
        trader.subscribe("/stock/*");
        server.getSession(trader.clientId()).addListener(new StockCoalescer(Duration.ofMillis(1000)));
        TestClient exchange = new TestClient(server, false).connected();

        // Published while the trader has no connect held: the quotes wait in its queue.
        quote(exchange, 0, "A", 1);        // first A: kept, window A = [0, 1000)
        quote(exchange, 100, "B", 1);      // first B: kept, window B = [100, 1100)
        quote(exchange, 200, "A", 2);      // dropped
        quote(exchange, 300, "B", 2);      // dropped
        quote(exchange, 999, "A", 3);      // dropped, last ms of the window
        quote(exchange, 1000, "A", 4);     // kept: A's window is over, a new one starts
        quote(exchange, 1050, "B", 3);     // dropped
        quote(exchange, 1100, "B", 4);     // kept
        quote(exchange, 1500, "A", 5);     // dropped, inside A's second window
        assertEquals(9, server.getSession(trader.clientId()).getQueueSize());

        List<Map<String, Object>> reply = trader.call(trader.connectMessage());

        List<String> delivered = reply.stream()
                .filter(m -> String.valueOf(m.get("channel")).startsWith("/stock/"))
                .map(m -> m.get("channel") + "=" + m.get("data"))
                .toList();
        assertEquals(List.of("/stock/A=1", "/stock/B=1", "/stock/A=4", "/stock/B=4"), delivered);
        assertEquals(true, TestClient.reply(reply, "/meta/connect").get("successful"));
    }

    @Test
    void otherChannelsAndUnstampedMessagesPassUntouched() {
        TestClient trader = new TestClient(server, false).connected();
        trader.subscribe(List.of("/stock/*", "/news"));
        server.getSession(trader.clientId()).addListener(new StockCoalescer(Duration.ofMillis(1000)));
        TestClient exchange = new TestClient(server, false).connected();

        quote(exchange, 0, "A", 1);
        exchange.publish("/news", "n1");
        exchange.publish("/news", "n2");
        quote(exchange, 10, "A", 2);

        List<Map<String, Object>> reply = trader.call(trader.connectMessage());

        assertEquals(List.of(1), data(reply, "/stock/A"));
        assertEquals(List.of("n1", "n2"), data(reply, "/news"));
        assertTrue(reply.stream().allMatch(m -> m.containsKey("timestamp")), "the extension stamps everything: " + reply);
    }

    private void quote(TestClient exchange, long atMillis, String symbol, int price) {
        Instant start = Instant.parse("2026-11-21T06:02:00.000Z");
        clock.advance(Duration.between(clock.instant(), start.plusMillis(atMillis)));
        assertEquals(true, exchange.publish("/stock/" + symbol, price).get("successful"));
    }

    private static List<Object> data(List<Map<String, Object>> messages, String channel) {
        return TestClient.deliveries(messages, channel).stream().map(m -> m.get("data")).toList();
    }

    /**
     * Keeps the first {@code /stock/X} quote of each symbol X, drops the quotes of X stamped
     * less than {@code window} after it, and starts a new window with the next quote kept.
     * Messages without a readable timestamp and other channels are left alone.
     *
     * <p>Runs under the session lock, which also guards {@link #windowStarts}.
     */
    private static final class StockCoalescer implements ServerSession.DeQueueListener {
        private final Duration window;
        private final Map<String, Instant> windowStarts = new HashMap<>();

        StockCoalescer(Duration window) {
            this.window = window;
        }

        @Override
        public void deQueue(ServerSession session, Queue<ServerMessage> queue) {
            for (Iterator<ServerMessage> it = queue.iterator(); it.hasNext(); ) {
                ServerMessage message = it.next();
                String channel = message.getChannel();
                if (channel == null || !channel.startsWith("/stock/")
                        || !(message.get(Message.TIMESTAMP_FIELD) instanceof String stamp)) {
                    continue;
                }
                String symbol = channel.substring("/stock/".length());
                Instant at = Instant.parse(stamp);
                Instant start = windowStarts.get(symbol);
                if (start != null && at.isBefore(start.plus(window))) {
                    it.remove();
                } else {
                    windowStarts.put(symbol, at);
                }
            }
        }
    }
}
