package io.bayeux.common;

import io.bayeux.api.ChannelId;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HashMapMessageTest {
    private static HashMapMessage message(Map<String, Object> fields) {
        return new HashMapMessage(fields);
    }

    @Test
    void getIdReturnsNumbersAsStrings() {
        assertEquals("7", message(Map.of("id", 7)).getId());
        assertEquals("12345678901", message(Map.of("id", 12345678901L)).getId());
        assertEquals("abc", message(Map.of("id", "abc")).getId());
        assertNull(new HashMapMessage().getId());
    }

    @Test
    void setIdNullRemovesTheField() {
        HashMapMessage message = message(Map.of("id", "1"));
        message.setId(null);
        assertFalse(message.containsKey("id"));
    }

    @Test
    void getAdviceTrueCreatesTheAdviceOnce() {
        HashMapMessage message = new HashMapMessage();
        assertNull(message.getAdvice());
        assertNull(message.getAdvice(false));
        assertFalse(message.containsKey("advice"), "asking without create adds nothing");

        Map<String, Object> advice = message.getAdvice(true);
        advice.put("reconnect", "retry");

        assertSame(advice, message.getAdvice(true));
        assertSame(advice, message.getAdvice());
        assertEquals(Map.of("reconnect", "retry"), message.get("advice"));
    }

    @Test
    void getExtAndDataAsMapCreateTheSameWay() {
        HashMapMessage message = new HashMapMessage();
        message.getExt(true).put("ack", 1);
        message.getDataAsMap(true).put("text", "hi");
        assertEquals(Map.of("ack", 1), message.getExt());
        assertEquals(Map.of("text", "hi"), message.getDataAsMap());
        assertEquals(Map.of("text", "hi"), message.getData());
    }

    @Test
    void typedAccessorsIgnoreFieldsOfTheWrongType() {
        HashMapMessage message = message(Map.of("channel", 5, "clientId", List.of(), "advice", "x", "ext", 1,
                "data", "text", "successful", "true"));
        assertNull(message.getChannel());
        assertNull(message.getChannelId());
        assertNull(message.getClientId());
        assertNull(message.getAdvice());
        assertNull(message.getExt());
        assertNull(message.getDataAsMap());
        assertEquals("text", message.getData());
        assertFalse(message.isSuccessful(), "only the boolean true is success");
    }

    @Test
    void getChannelIdParsesTheChannel() {
        assertEquals(ChannelId.of("/chat/room"), message(Map.of("channel", "/chat/room")).getChannelId());
        assertThrows(IllegalArgumentException.class, () -> message(Map.of("channel", "/bad/")).getChannelId());
    }

    @Test
    void settersWithNullRemoveFields() {
        HashMapMessage message = new HashMapMessage();
        message.setChannel("/a");
        message.setClientId("c");
        message.setData("d");
        message.setSuccessful(true);
        assertEquals(Map.of("channel", "/a", "clientId", "c", "data", "d", "successful", true), message);
        assertTrue(message.isSuccessful());
        message.setChannel(null);
        message.setClientId(null);
        message.setData(null);
        message.setSuccessful(false);
        assertEquals(Map.of("successful", false), message);
    }

    @Test
    void isMetaForMetaChannelsOnly() {
        assertTrue(message(Map.of("channel", "/meta/connect")).isMeta());
        assertTrue(message(Map.of("channel", "/meta/handshake")).isMeta());
        assertFalse(message(Map.of("channel", "/metadata/x")).isMeta());
        assertFalse(message(Map.of("channel", "/chat/meta")).isMeta());
        assertFalse(message(Map.of("channel", "/service/echo")).isMeta());
        assertFalse(new HashMapMessage().isMeta());
    }

    @Test
    void isPublishReplyForNonMetaMessagesWithSuccessfulAndNoData() {
        assertTrue(message(Map.of("channel", "/chat/room", "successful", true, "id", "3")).isPublishReply());
        assertTrue(message(Map.of("channel", "/chat/room", "successful", false, "error", "404::message_deleted"))
                .isPublishReply(), "a failed publish is still a publish reply");
        assertFalse(message(Map.of("channel", "/chat/room", "data", "hi")).isPublishReply(), "a delivery");
        assertFalse(message(Map.of("channel", "/chat/room", "successful", true, "data", "hi")).isPublishReply());
        assertFalse(message(Map.of("channel", "/meta/connect", "successful", true)).isPublishReply(), "a meta reply");
        assertFalse(message(Map.of("channel", "/chat/room")).isPublishReply());
    }

    @Test
    void copiesTheFieldsItIsBuiltFrom() {
        Map<String, Object> fields = new java.util.HashMap<>(Map.of("channel", "/a"));
        HashMapMessage message = message(fields);
        message.setChannel("/b");
        assertEquals("/a", fields.get("channel"));
    }
}
