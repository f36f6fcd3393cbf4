package io.bayeux.server.ext;

import io.bayeux.server.BayeuxServerConfig;
import io.bayeux.server.internal.BayeuxServerImpl;
import io.bayeux.server.internal.ManualScheduler;
import io.bayeux.server.internal.TestClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class TimesyncExtensionTest {
    /** Every read of the clock moves it 7 ms on: the first read gives {@code ts}, the next one {@code ts + p}. */
    private static final long STEP = 7;

    private final ManualScheduler scheduler = new ManualScheduler();
    private final AtomicLong now = new AtomicLong(10_000);
    private final TimesyncExtension timesync = new TimesyncExtension(() -> now.getAndAdd(STEP));
    private BayeuxServerImpl server;

    @BeforeEach
    void start() {
        server = new BayeuxServerImpl(scheduler.config().executor(Runnable::run).build()).start();
        server.addExtension(timesync);
    }

    @AfterEach
    void stop() {
        server.stop();
    }

    @Test
    void zeroLagIsAlwaysAnsweredWithTcTsPAndA() {
        Map<String, Object> reply = handshake(Map.of("tc", 9_950, "l", 0, "o", 0));

        assertEquals(Map.of("tc", 9_950L, "ts", 10_000L, "p", STEP, "a", -50L), answer(reply));
    }

    @Test
    void estimateWithinTheAccuracyTargetIsNotAnswered() {
        // a = (9_990 + 10 + 5) - 10_000 = 5
        Map<String, Object> reply = handshake(Map.of("tc", 9_990, "l", 5, "o", 10));

        assertEquals(true, reply.get("successful"));
        assertNull(answer(reply));
    }

    @Test
    void estimateOffByTheAccuracyTargetOrMoreIsCorrected() {
        // a = (10_000 + 20 + 5) - 10_000 = 25
        assertEquals(Map.of("tc", 10_000L, "ts", 10_000L, "p", STEP, "a", 25L), answer(handshake(Map.of("tc", 10_000, "l", 5, "o", 20))));

        now.set(20_000);
        // a = (19_900 + 30 + 20) - 20_000 = -50
        assertEquals(Map.of("tc", 19_900L, "ts", 20_000L, "p", STEP, "a", -50L), answer(handshake(Map.of("tc", 19_900, "l", 20, "o", 30))));

        now.set(30_000);
        // a = (30_000 + 19 + 5) - 30_000 = 24: just inside the target
        assertNull(answer(handshake(Map.of("tc", 30_000, "l", 5, "o", 19))));
    }

    @Test
    void accuracyTargetCanBeWidened() {
        timesync.setAccuracyTarget(100);

        // a = -50, now within the target
        assertNull(answer(handshake(Map.of("tc", 9_900, "l", 20, "o", 30))));
        assertEquals(100, timesync.getAccuracyTarget());
    }

    @Test
    void negativeAccuracyTargetIsRejected() {
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> timesync.setAccuracyTarget(-1));
        assertEquals("accuracyTarget must be >= 0: -1", x.getMessage());
    }

    @Test
    void requestWithoutLagIsAnsweredOldStyleWithoutA() {
        Map<String, Object> reply = handshake(Map.of("tc", 9_000));

        assertEquals(Map.of("tc", 9_000L, "ts", 10_000L, "p", STEP), answer(reply));
    }

    @Test
    void connectIsAnsweredAndTheLagKeptInTheSession() {
        TestClient client = new TestClient(server, false);
        client.handshake(null);
        now.set(50_000);
        Map<String, Object> connect = new LinkedHashMap<>(client.connectMessage());
        connect.put("ext", Map.of("timesync", Map.of("tc", 49_000, "l", 12, "o", 3)));

        Map<String, Object> reply = TestClient.reply(client.call(connect), "/meta/connect");

        // a = (49_000 + 3 + 12) - 50_000 = -985
        assertEquals(Map.of("tc", 49_000L, "ts", 50_000L, "p", STEP, "a", -985L), answer(reply));
        assertEquals(12, ((Number) server.getSession(client.clientId()).getAttribute(TimesyncExtension.LAG_ATTRIBUTE)).intValue());
    }

    @Test
    void timeSpentHoldingAConnectShowsInP() {
        TimesyncExtension steady = new TimesyncExtension(now::get);
        server.removeExtension(timesync);
        server.addExtension(steady);
        TestClient client = new TestClient(server, false).connected();
        Map<String, Object> connect = new LinkedHashMap<>(client.connectMessage());
        connect.put("ext", Map.of("timesync", Map.of("tc", 10_000, "l", 0, "o", 0)));

        var held = client.send(connect);
        now.addAndGet(BayeuxServerConfig.DEFAULT_TIMEOUT.toMillis());
        scheduler.advance(BayeuxServerConfig.DEFAULT_TIMEOUT.toMillis());

        Map<String, Object> reply = TestClient.reply(held.join(), "/meta/connect");
        assertEquals(Map.of("tc", 10_000L, "ts", 10_000L, "p", 20_000L, "a", 0L), answer(reply));
    }

    @Test
    void nonMetaMessagesAreIgnored() {
        TestClient client = new TestClient(server, false).connected();
        Map<String, Object> reply = TestClient.reply(client.call(Map.of("channel", "/chat",
                "data", "hi", "ext", Map.of("timesync", Map.of("tc", 1, "l", 0, "o", 0)))), "/chat");

        assertEquals(true, reply.get("successful"));
        assertNull(reply.get("ext"));
    }

    private Map<String, Object> handshake(Map<String, Object> timesync) {
        return new TestClient(server, false).handshake(Map.of("ext", Map.of("timesync", timesync)));
    }

    /** The reply's ext.timesync with numbers as longs, or null. */
    private static Map<String, Long> answer(Map<String, Object> reply) {
        if (!(reply.get("ext") instanceof Map<?, ?> ext) || !(ext.get("timesync") instanceof Map<?, ?> answer)) {
            return null;
        }
        Map<String, Long> result = new LinkedHashMap<>();
        answer.forEach((k, v) -> result.put((String) k, ((Number) v).longValue()));
        return result;
    }
}
