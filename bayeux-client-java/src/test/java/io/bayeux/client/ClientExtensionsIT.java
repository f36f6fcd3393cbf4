package io.bayeux.client;

import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.client.ext.TimestampExtension;
import io.bayeux.client.ext.TimesyncExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Java client's timestamp and timesync extensions against the server's, over real sockets. */
class ClientExtensionsIT {
    @RegisterExtension
    final ServerAndClients fixture = new ServerAndClients();
    private final BlockingQueue<Map.Entry<String, Object>> stamps = new LinkedBlockingQueue<>();

    @BeforeEach
    void start() {
        fixture.start().bayeux().addExtension(new BayeuxServer.Extension() {
            @Override
            public boolean rcv(ServerSession from, ServerMessage.Mutable message) {
                stamps.add(Map.entry(message.getChannel(), String.valueOf(message.get("timestamp"))));
                return true;
            }

            @Override
            public boolean rcvMeta(ServerSession from, ServerMessage.Mutable message) {
                return rcv(from, message);
            }
        });
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void theTimestampExtensionStampsEveryMessageTheClientSends(String transport) throws Exception {
        BayeuxClient client = fixture.client(transport, ClientConfig.builder().build());
        client.addExtension(new TimestampExtension());
        Instant before = Instant.now().minusMillis(1);
        Clients.connect(client);
        client.getChannel("/stamped").publish("data");
        boolean sawPublish = false;
        while (!sawPublish) {
            Map.Entry<String, Object> stamp = Clients.next(stamps);
            Instant at = Instant.parse((String) stamp.getValue());
            assertTrue(!at.isBefore(before) && !at.isAfter(Instant.now()), stamp + " is the time it was sent");
            sawPublish = "/stamped".equals(stamp.getKey());
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void theTimestampExtensionWritesWithTheGivenFormatAndClock(String transport) throws Exception {
        Clock clock = Clock.fixed(Instant.parse("2026-01-02T03:04:05Z"), ZoneId.of("UTC"));
        BayeuxClient client = fixture.client(transport, ClientConfig.builder().build());
        client.addExtension(new TimestampExtension(DateTimeFormatter.ofPattern("EEE MMM dd HH:mm:ss zzz yyyy", Locale.US), clock));
        Clients.connect(client);
        assertEquals(Map.entry("/meta/handshake", "Fri Jan 02 03:04:05 UTC 2026"), Clients.next(stamps));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void theTimesyncExtensionMeasuresTheOffsetOfAClientClockTenSecondsBehind(String transport) throws Exception {
        fixture.server().bayeux().addExtension(new io.bayeux.server.ext.TimesyncExtension());
        long behind = 10_000;
        TimesyncExtension timesync = new TimesyncExtension(() -> System.currentTimeMillis() - behind);
        BayeuxClient client = fixture.client(transport, ClientConfig.builder().build());
        client.addExtension(timesync);
        Clients.connect(client);
        // The handshake and the first connect each gave a measure; the latest counts.
        assertTrue(timesync.getNetworkLag() >= 0 && timesync.getNetworkLag() < 2_000, "lag " + timesync.getNetworkLag());
        long offset = timesync.getTimeOffset();
        assertTrue(Math.abs(offset - behind) < 2_000, "offset " + offset + " ms, expected about " + behind);
        long serverTime = timesync.getServerTime();
        assertTrue(Math.abs(serverTime - System.currentTimeMillis()) < 2_000, "server time " + serverTime);
    }
}
