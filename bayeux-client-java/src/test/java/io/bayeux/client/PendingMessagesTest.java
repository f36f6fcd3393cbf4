package io.bayeux.client;

import io.bayeux.api.Message;
import io.bayeux.common.HashMapMessage;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link PendingMessages}: bounded, and handed over once with the session's id. */
class PendingMessagesTest {
    private final PendingMessages pending = new PendingMessages(2);

    private static Message.Mutable message(String channel) {
        HashMapMessage message = new HashMapMessage();
        message.setChannel(channel);
        return message;
    }

    @Test
    void refusesMessagesBeyondItsBound() {
        assertTrue(pending.offer(message("/a")));
        assertTrue(pending.offer(message("/b")));
        assertFalse(pending.offer(message("/c")));
    }

    @Test
    void handsOverEveryMessageInOrderOnceWithTheSessionsId() {
        pending.offer(message("/a"));
        pending.offer(message("/b"));
        List<Message.Mutable> taken = pending.takeAll("s1");
        assertEquals(List.of("/a", "/b"), taken.stream().map(Message::getChannel).toList());
        assertEquals(List.of("s1", "s1"), taken.stream().map(Message::getClientId).toList());
        assertEquals(List.of(), pending.takeAll("s1"));
        assertTrue(pending.offer(message("/c")), "room again once taken");
    }

    @Test
    void withoutASessionTheMessagesKeepNoId() {
        pending.offer(message("/a"));
        assertNull(pending.takeAll(null).get(0).getClientId());
    }
}
