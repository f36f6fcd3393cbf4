package io.bayeux.server.internal;

import io.bayeux.api.server.HistoryPolicy;
import io.bayeux.api.server.ServerMessage;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One channel's history, on explicit times: what it keeps, and why it cannot give a gap. */
class ChannelHistoryTest {
    private static final HistoryPolicy POLICY = HistoryPolicy.of(3, Duration.ofSeconds(10));

    private static ServerMessage message(Object data) {
        ServerMessageImpl message = new ServerMessageImpl();
        message.setChannel("/chat/room");
        message.setData(data);
        message.freeze();
        return message;
    }

    private static List<Object> data(List<ServerMessage> messages) {
        return messages.stream().map(ServerMessage::getData).toList();
    }

    @Test
    void offsetsStartWhereTheyAreToldAndGrowByOne() {
        ChannelHistory history = new ChannelHistory("/chat/room", "e", 1000, 0);
        assertEquals(999, history.top());
        assertEquals(1000, history.next());
        history.append(message("a"), 0, POLICY);
        history.append(message("b"), 0, POLICY);
        assertEquals(1001, history.top());
        assertNull(history.gapAfter(999, 0, POLICY), "everything after the start is here");
        assertEquals(List.of("a", "b"), data(history.after(999)));
        assertEquals(List.of("b"), data(history.after(1000)));
        assertEquals(List.of(), data(history.after(1001)));
    }

    @Test
    void pastItsSizeTheOldestGoAndAGapBeforeThemIsTrimmed() {
        ChannelHistory history = new ChannelHistory("/chat/room", "e", 1, 0);
        for (int i = 1; i <= 5; i++) {
            history.append(message(i), 0, POLICY);
        }
        assertEquals(List.of(3, 4, 5), data(history.all(0, POLICY)));
        assertEquals(ChannelHistory.Gap.TRIMMED, history.gapAfter(1, 0, POLICY), "2 is gone");
        assertNull(history.gapAfter(2, 0, POLICY), "3, 4 and 5 are here");
        assertEquals(2, history.beforeFirst());
        assertEquals(ChannelHistory.Gap.AHEAD, history.gapAfter(6, 0, POLICY));
    }

    @Test
    void pastItsTtlAMessageGoesAndAGapBeforeItExpired() {
        ChannelHistory history = new ChannelHistory("/chat/room", "e", 1, 0);
        history.append(message("old"), 0, POLICY);
        history.append(message("new"), 5_000, POLICY);
        assertNull(history.gapAfter(0, 9_999, POLICY), "both kept until 10 s passed");
        assertEquals(ChannelHistory.Gap.EXPIRED, history.gapAfter(0, 10_001, POLICY));
        assertEquals(List.of("new"), data(history.all(10_001, POLICY)));
        assertNull(history.gapAfter(1, 10_001, POLICY), "what follows the expired one is here");
        assertNull(history.gapAfter(2, 20_000, POLICY), "a client that has everything misses nothing, even once all expired");
        assertTrue(history.isIdle(20_000 + 1, 15_000), "empty, and idle for long");
    }
}
