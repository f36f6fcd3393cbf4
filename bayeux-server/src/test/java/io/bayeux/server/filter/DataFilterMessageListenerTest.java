package io.bayeux.server.filter;

import io.bayeux.server.internal.ServerMessageImpl;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DataFilterMessageListenerTest {
    private static ServerMessageImpl message(Object data) {
        ServerMessageImpl message = new ServerMessageImpl();
        message.setChannel("/chat/room");
        message.setData(data);
        return message;
    }

    @Test
    void appliesTheFiltersInOrderAndReplacesTheData() {
        List<String> seen = new ArrayList<>();
        DataFilter first = (from, channel, data) -> {
            seen.add("first:" + data);
            return data + "1";
        };
        DataFilter second = (from, channel, data) -> {
            seen.add("second:" + data);
            return data + "2";
        };
        ServerMessageImpl message = message("x");

        assertTrue(new DataFilterMessageListener(first, second).onMessage(null, null, message));

        assertEquals(List.of("first:x", "second:x1"), seen);
        assertEquals("x12", message.getData());
    }

    @Test
    void vetoesTheMessageWhenAFilterAborts() {
        boolean[] laterRan = {false};
        DataFilter abort = (from, channel, data) -> {
            throw new DataFilter.AbortException("no");
        };
        DataFilter later = (from, channel, data) -> {
            laterRan[0] = true;
            return data;
        };
        ServerMessageImpl message = message("x");

        assertFalse(new DataFilterMessageListener(abort, later).onMessage(null, null, message));

        assertFalse(laterRan[0], "filters after the aborting one do not run");
        assertEquals("x", message.getData(), "the data is left alone");
    }

    @Test
    void vetoesTheMessageWhenAFilterFailsSoUnfilteredDataNeverPasses() {
        DataFilter broken = (from, channel, data) -> {
            throw new IllegalStateException("bug");
        };
        assertFalse(new DataFilterMessageListener(broken).onMessage(null, null, message("<b>")));
    }

    @Test
    void leavesTheMessageUntouchedWhenNoFilterChangesIt() {
        ServerMessageImpl message = message(Map.of("text", "plain"));
        Object data = message.getData();
        message.freeze();

        assertTrue(new DataFilterMessageListener(new NoMarkupFilter()).onMessage(null, null, message));

        assertSame(data, message.getData());
    }

    @Test
    void vetoesAFrozenMessageWhoseDataWouldChange() {
        ServerMessageImpl message = message("<b>");
        message.freeze();
        assertFalse(new DataFilterMessageListener(new NoMarkupFilter()).onMessage(null, null, message));
    }

    @Test
    void rejectsNullFilters() {
        assertThrows(NullPointerException.class, () -> new DataFilterMessageListener((DataFilter[]) null));
        assertThrows(NullPointerException.class, () -> new DataFilterMessageListener(new NoMarkupFilter(), null));
    }
}
