package io.bayeux.server.internal;

import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PublishTest extends ServerTestSupport {
    @Test
    void publisherGetsAReplyWithTheSameIdAndNoData() {
        TestClient client = new TestClient(server, true).connected();
        List<Map<String, Object>> replies = client.call(Map.of("channel", "/chat/room", "id", "abc", "data", "x"));
        Map<String, Object> reply = TestClient.reply(replies, "/chat/room");
        assertEquals("abc", reply.get("id"));
        assertEquals(true, reply.get("successful"));
        assertFalse(reply.containsKey("data"));
    }

    @Test
    void aListenerThatEndsThePublishersBatchUnbalancedDoesNotFailThePublish() {
        // Application code ending a batch it never started, while the publishing request is
        // handled as a batch of its session: the request is still answered.
        server.createChannelIfAbsent("/chat/room", channel -> channel.addListener((ServerChannel.MessageListener) (from, c, message) -> {
            from.endBatch();
            return true;
        }));
        TestClient client = new TestClient(server, true).connected();
        Map<String, Object> reply = TestClient.reply(client.call(Map.of("channel", "/chat/room", "id", "1", "data", "x")), "/chat/room");
        assertEquals(true, reply.get("successful"));
        reply = TestClient.reply(client.call(Map.of("channel", "/chat/room", "id", "2", "data", "y")), "/chat/room");
        assertEquals(true, reply.get("successful"), "and the next one");
    }

    @Test
    void numericIdsAreEchoedAsSent() {
        TestClient client = new TestClient(server, true).connected();
        Map<String, Object> reply = TestClient.reply(client.call(Map.of("channel", "/chat/room", "id", 42, "data", "x")), "/chat/room");
        assertEquals(42, ((Number) reply.get("id")).intValue());
    }

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void deliveredMessagesCarryNeitherThePublishersClientIdNorItsId(boolean push) {
        TestClient publisher = new TestClient(server, push).connected();
        TestClient subscriber = new TestClient(server, true).connected();
        subscriber.subscribe("/chat/room");
        publisher.call(Map.of("channel", "/chat/room", "id", "77", "data", "secret", "ext", Map.of("k", "v")));
        Map<String, Object> delivered = subscriber.nextPushed();
        assertEquals("/chat/room", delivered.get("channel"));
        assertEquals("secret", delivered.get("data"));
        assertEquals(Map.of("k", "v"), delivered.get("ext"));
        assertNull(delivered.get("clientId"));
        assertNull(delivered.get("id"));
    }

    @Test
    void clientsCannotPublishToMetaChannels() {
        TestClient client = new TestClient(server, true).connected();
        for (String channel : List.of("/meta/foo", "/meta/subscribe/x")) {
            Map<String, Object> reply = TestClient.reply(client.call(Map.of("channel", channel, "data", "x")), channel);
            assertEquals(false, reply.get("successful"), channel);
            assertTrue(((String) reply.get("error")).startsWith("403:"), reply.toString());
        }
    }

    @Test
    void publishingToAWildcardChannelIsRefused() {
        TestClient client = new TestClient(server, true).connected();
        Map<String, Object> reply = client.publish("/chat/*", "x");
        assertEquals(false, reply.get("successful"));
        assertEquals("405::channel_invalid", reply.get("error"));
    }

    @Test
    void serverSessionDeliverReachesThatSessionOnly() {
        TestClient alice = new TestClient(server, true).connected();
        TestClient bob = new TestClient(server, true).connected();
        alice.subscribe("/private");
        bob.subscribe("/private");
        ServerSession session = server.getSession(alice.clientId());
        session.deliver(null, "/private", Map.of("to", "alice"), io.bayeux.api.Promise.noop());
        assertEquals(Map.of("to", "alice"), alice.nextPushed().get("data"));
        assertTrue(bob.pushed.isEmpty());
    }

    @Test
    void serviceChannelsReplyWithDeliverLikeAnRpc() {
        // An echo service: a listener on /service/echo that delivers the data back to the sender.
        server.createChannelIfAbsent("/service/echo").getReference().addListener(
                (io.bayeux.api.server.ServerChannel.MessageListener) (from, channel, message) -> {
                    var reply = server.newMessage();
                    reply.setChannel("/service/echo");
                    reply.setId(message.getId());
                    reply.setData(message.getData());
                    reply.setSuccessful(true);
                    from.deliver(null, reply, io.bayeux.api.Promise.noop());
                    return true;
                });
        TestClient client = new TestClient(server, true).connected();
        Map<String, Object> reply = TestClient.reply(client.call(Map.of("channel", "/service/echo", "id", "7", "data", "ping")), "/service/echo");
        assertEquals(true, reply.get("successful"));
        Map<String, Object> echoed = client.nextPushed();
        assertEquals("ping", echoed.get("data"));
        assertEquals("7", echoed.get("id"));
    }
}
