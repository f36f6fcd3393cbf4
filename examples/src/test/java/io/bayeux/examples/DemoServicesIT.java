package io.bayeux.examples;

import io.bayeux.api.Message;
import io.bayeux.client.BayeuxClient;
import io.bayeux.client.ClientConfig;
import io.bayeux.client.transport.ClientTransport;
import io.bayeux.client.transport.LongPollingTransport;
import io.bayeux.client.transport.WebSocketTransport;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The demo's annotated services over real sockets, driven by the Java client. */
class DemoServicesIT {
    private NettyBayeuxServer server;
    private final List<BayeuxClient> clients = new ArrayList<>();

    @BeforeEach
    void start() {
        server = DemoServer.configure(NettyBayeuxServer.builder().port(0)).build().start();
    }

    @AfterEach
    void stop() {
        clients.forEach(BayeuxClient::close);
        server.stop();
    }

    private BayeuxClient connected() throws InterruptedException {
        return connected(new BayeuxClient(server.uri().toString()));
    }

    /** A client that only uses the transport named {@code transport}. */
    private BayeuxClient connected(String transport) throws InterruptedException {
        ClientConfig config = ClientConfig.builder().build();
        ClientTransport only = WebSocketTransport.NAME.equals(transport) ? new WebSocketTransport(config) : new LongPollingTransport(config);
        BayeuxClient client = connected(new BayeuxClient(server.uri().toString(), config, only));
        assertEquals(transport, client.getTransportName());
        return client;
    }

    private BayeuxClient connected(BayeuxClient client) throws InterruptedException {
        clients.add(client);
        client.handshake();
        assertTrue(client.waitFor(Duration.ofSeconds(5), BayeuxClient.State.CONNECTED));
        return client;
    }

    private static BlockingQueue<Message> subscribe(BayeuxClient client, String channel) throws InterruptedException {
        BlockingQueue<Message> received = new LinkedBlockingQueue<>();
        BlockingQueue<Message> subscribed = new LinkedBlockingQueue<>();
        client.getChannel(channel).subscribe((c, message) -> received.add(message), subscribed::add);
        assertTrue(poll(subscribed).isSuccessful());
        return received;
    }

    private static <T> T poll(BlockingQueue<T> queue) throws InterruptedException {
        T item = queue.poll(5, TimeUnit.SECONDS);
        assertNotNull(item, "nothing within 5 s");
        return item;
    }

    @Test
    void echoRemoteCallResolvesWithTheData() throws Exception {
        BayeuxClient client = connected();
        BlockingQueue<Message> replies = new LinkedBlockingQueue<>();
        client.remoteCall("echo", Map.of("n", 1, "text", "hi"), replies::add);
        Message reply = poll(replies);
        assertTrue(reply.isSuccessful(), reply.toString());
        assertEquals(Map.of("n", 1, "text", "hi"), reply.getData());
    }

    @Test
    void joiningARoomBroadcastsTheSortedMemberList() throws Exception {
        BayeuxClient watcher = connected();
        BlockingQueue<Message> members = subscribe(watcher, "/members/lobby");
        BayeuxClient zoe = connected();
        BayeuxClient adam = connected();

        zoe.getChannel(MembersService.CHANNEL).publish(Map.of("room", "/chat/lobby", "user", "zoe", "action", "join"));
        assertEquals(List.of("zoe"), poll(members).getData());
        adam.getChannel(MembersService.CHANNEL).publish(Map.of("room", "/chat/lobby", "user", "adam", "action", "join"));
        Message both = poll(members);
        assertEquals("/members/lobby", both.getChannel());
        assertEquals(List.of("adam", "zoe"), both.getData(), "sorted, not in joining order");
    }

    @Test
    void chatMessagesHaveMarkupEscapedAndMaskedWordsHidden() throws Exception {
        BayeuxClient reader = connected();
        BlockingQueue<Message> chat = subscribe(reader, "/chat/lobby");
        BayeuxClient writer = connected();

        BlockingQueue<Message> published = new LinkedBlockingQueue<>();
        writer.getChannel("/chat/lobby").publish(Map.of("user", "w", "text", "<b>Darn</b> it, darned thing"), published::add);
        assertTrue(poll(published).isSuccessful());
        Message message = poll(chat);
        assertEquals(Map.of("user", "w", "text", "&lt;b&gt;****&lt;/b&gt; it, darned thing"), message.getData());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {WebSocketTransport.NAME, LongPollingTransport.NAME})
    void chatMessagesKeepQuotesAndEveryNonStringAsPublished(String transport) throws Exception {
        BayeuxClient reader = connected(transport);
        BlockingQueue<Message> chat = subscribe(reader, "/chat/json");
        BayeuxClient writer = connected(transport);
        Map<String, Object> nested = new LinkedHashMap<>();
        nested.put("list", Arrays.asList(1, "'single' \"double\"", false, null, 2.5));
        nested.put("none", null);
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("text", "he said \"hi\" & <b>");
        data.put("quote", "\"quote\" it's");
        data.put("n", 7);
        data.put("big", 12_345_678_901L);
        data.put("ok", true);
        data.put("nested", nested);

        BlockingQueue<Message> published = new LinkedBlockingQueue<>();
        writer.getChannel("/chat/json").publish(data, published::add);
        assertTrue(poll(published).isSuccessful());
        Map<String, Object> received = poll(chat).getDataAsMap();

        assertEquals("he said \"hi\" &amp; &lt;b&gt;", received.get("text"), "only <, > and & are escaped");
        Map<String, Object> expected = new LinkedHashMap<>(data);
        expected.put("text", "he said \"hi\" &amp; &lt;b&gt;");
        assertEquals(expected, received, "everything else arrives as published, with its types");
        assertEquals(Integer.valueOf(7), received.get("n"));
        assertEquals(Long.valueOf(12_345_678_901L), received.get("big"));
        assertEquals(Boolean.TRUE, received.get("ok"));
    }
}
