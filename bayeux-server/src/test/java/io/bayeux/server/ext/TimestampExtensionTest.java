package io.bayeux.server.ext;

import io.bayeux.server.BayeuxServerConfig;
import io.bayeux.server.internal.BayeuxServerImpl;
import io.bayeux.server.internal.ManualScheduler;
import io.bayeux.testing.MutableClock;
import io.bayeux.server.internal.TestClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

class TimestampExtensionTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-21T06:02:00.123Z"));
    private BayeuxServerImpl server;

    @BeforeEach
    void start() {
        server = new BayeuxServerImpl(scheduler.config().executor(Runnable::run).build()).start();
    }

    @AfterEach
    void stop() {
        server.stop();
    }

    @Test
    void repliesAndDeliveriesCarryAnIsoUtcInstantWithMilliseconds() {
        server.addExtension(new TimestampExtension(TimestampExtension.DEFAULT_FORMATTER, clock));
        TestClient alice = new TestClient(server, false);
        Map<String, Object> handshake = alice.handshake(null);
        assertEquals("2026-11-21T06:02:00.123Z", handshake.get("timestamp"));
        alice.call(alice.connectMessage());
        alice.subscribe("/chat");

        clock.advanceMillis(877);
        List<Map<String, Object>> messages = alice.call(Map.of("channel", "/chat", "data", "hi"));

        assertEquals("2026-11-21T06:02:01.000Z", TestClient.reply(messages, "/chat").get("timestamp"),
                "the publish reply; three fraction digits even when they are zero");
        // The client connects again at once after its first connect: the delivery waits for that connect.
        clock.advanceMillis(1000);
        List<Map<String, Object>> connected = alice.call(alice.connectMessage());
        assertEquals("2026-11-21T06:02:01.000Z", TestClient.deliveries(connected, "/chat").get(0).get("timestamp"),
                "stamped when it was published");
    }

    @Test
    void everySubscriberSeesTheSameStampOfABroadcast() {
        server.addExtension(new TimestampExtension(TimestampExtension.DEFAULT_FORMATTER, clock));
        TestClient alice = new TestClient(server, true).connected();
        TestClient bob = new TestClient(server, true).connected();
        alice.subscribe("/chat");
        bob.subscribe("/chat");
        TestClient publisher = new TestClient(server, false).connected();

        publisher.publish("/chat", "hi");

        Map<String, Object> toAlice = alice.nextPushed();
        Map<String, Object> toBob = bob.nextPushed();
        assertEquals("2026-11-21T06:02:00.123Z", toAlice.get("timestamp"));
        assertEquals(toAlice, toBob);
    }

    @Test
    void formatterAndClockZoneAreConfigurable() {
        DateTimeFormatter cometdStyle = DateTimeFormatter.ofPattern("EEE MMM dd HH:mm:ss zzz yyyy", Locale.US);
        server.addExtension(new TimestampExtension(cometdStyle, clock.withZone(ZoneId.of("Europe/Paris"))));

        Map<String, Object> handshake = new TestClient(server, false).handshake(null);

        assertEquals("Sat Nov 21 07:02:00 CET 2026", handshake.get("timestamp"));
    }

    @Test
    void defaultStampIsTheSystemTimeInUtc() {
        TimestampExtension extension = new TimestampExtension();
        Instant before = Clock.systemUTC().instant().minusMillis(1);

        String stamp = extension.now();

        Instant stamped = Instant.parse(stamp);
        assertFalse(stamped.isBefore(before), stamp);
        assertEquals(24, stamp.length(), "yyyy-MM-ddTHH:mm:ss.SSSZ: " + stamp);
    }

    @Test
    void withoutTheExtensionThereIsNoTimestamp() {
        Map<String, Object> handshake = new TestClient(server, false).handshake(null);

        assertFalse(handshake.containsKey("timestamp"));
    }
}
