package io.bayeux.server.internal;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Bad input reaching the core gets an error reply, never an exception, and costs nobody else anything. */
class BadInputTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private BayeuxServerImpl server;
    private TestClient client;

    @BeforeEach
    void start() {
        server = new BayeuxServerImpl(scheduler.config().executor(Runnable::run).build()).start();
        client = new TestClient(server, true).connected();
    }

    @AfterEach
    void stop() {
        server.stop();
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "{\"id\":\"1\",\"data\":1}|400::channel_missing",
            "{\"id\":\"1\",\"channel\":42}|400::channel_missing",
            "{\"id\":\"1\",\"channel\":\"no-slash\"}|405::channel_invalid",
            "{\"id\":\"1\",\"channel\":\"/a//b\"}|405::channel_invalid",
            "{\"id\":\"1\",\"channel\":\"/a/*/b\"}|405::channel_invalid",
            "{\"id\":{\"x\":1},\"channel\":\"/a\"}|405::message_id_invalid",
            "{\"id\":\"1\",\"channel\":\"/meta/subscribe\",\"clientId\":\"CID\"}|403::subscription_missing",
            "{\"id\":\"1\",\"channel\":\"/meta/subscribe\",\"clientId\":\"CID\",\"subscription\":7}|403::subscription_invalid",
            "{\"id\":\"1\",\"channel\":\"/meta/subscribe\",\"clientId\":\"CID\",\"subscription\":[]}|403::subscription_invalid",
            "{\"id\":\"1\",\"channel\":\"/meta/subscribe\",\"clientId\":\"CID\",\"subscription\":[\"/a\",5]}|403::subscription_invalid",
            "{\"id\":\"1\",\"channel\":\"/meta/subscribe\",\"clientId\":\"CID\",\"subscription\":\"bad name\"}|403::subscription_invalid",
            "{\"id\":\"1\",\"channel\":\"/meta/unsubscribe\",\"clientId\":\"CID\",\"subscription\":\"/never/created\"}|400::channel_missing",
            "{\"id\":\"1\",\"channel\":\"/meta/connect\",\"clientId\":[\"CID\"]}|402::session_unknown",
    })
    void badMessagesGetPreciseErrorReplies(String json, String error) {
        List<Map<String, Object>> replies = client.sendJson("[" + json.replace("CID", client.clientId()) + "]").join();
        assertEquals(1, replies.size(), replies.toString());
        assertEquals(false, replies.get(0).get("successful"));
        assertEquals(error, replies.get(0).get("error"));
    }

    @Test
    void oneBadMessageInABatchDoesNotSpoilTheOthers() {
        TestClient subscriber = new TestClient(server, true).connected();
        subscriber.subscribe("/chat/room");
        String json = "[{\"id\":\"1\",\"channel\":7},{\"id\":\"2\",\"channel\":\"/chat/room\",\"data\":\"ok\",\"clientId\":\""
                + client.clientId() + "\"}]";
        List<Map<String, Object>> replies = client.sendJson(json).join();
        assertEquals(false, replies.get(0).get("successful"));
        assertEquals(true, replies.get(1).get("successful"));
        assertEquals("ok", subscriber.nextPushed().get("data"));
    }

    @Test
    void aThrowingListenerCostsOnlyItsOwnCall() {
        server.createChannelIfAbsent("/chat/room").getReference().addListener(
                (io.bayeux.api.server.ServerChannel.MessageListener) (from, channel, message) -> {
                    throw new IllegalStateException("boom");
                });
        TestClient subscriber = new TestClient(server, true).connected();
        subscriber.subscribe("/chat/room");
        assertEquals(true, client.publish("/chat/room", "still delivered").get("successful"));
        assertEquals("still delivered", subscriber.nextPushed().get("data"));
    }

    @Test
    void malformedJsonIsRejectedByTheCodecWithAClearMessage() {
        var failure = assertThrows(Exception.class, () -> server.decode("[{\"channel\":".getBytes()));
        assertEquals(io.bayeux.common.json.JsonCodec.JsonException.class, failure.getClass());
        assertThrows(io.bayeux.common.json.JsonCodec.JsonException.class, () -> server.decode("42".getBytes()));
        assertThrows(io.bayeux.common.json.JsonCodec.JsonException.class, () -> server.decode("[1,2]".getBytes()));
    }
}
