package io.bayeux.client;

import io.bayeux.api.Message;
import io.bayeux.api.Promise;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

import static io.bayeux.client.Clients.WAIT;
import static io.bayeux.client.Clients.next;
import static io.bayeux.client.Clients.subscribe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Publish/subscribe, wildcards and the echo service between BayeuxClients, over each transport. */
class PubSubIT {
    @RegisterExtension
    final ServerAndClients fixture = new ServerAndClients();
    private final ClientConfig config = ClientConfig.builder().build();

    @BeforeEach
    void start() {
        NettyBayeuxServer server = fixture.start();
        server.bayeux().createChannelIfAbsent("/service/echo").getReference().addListener(
                (ServerChannel.MessageListener) (from, channel, message) -> {
                    var reply = server.bayeux().newMessage();
                    reply.setChannel(channel.getId());
                    reply.setId(message.getId());
                    reply.setSuccessful(true);
                    reply.setData(message.getData());
                    from.deliver(null, reply, Promise.noop());
                    return true;
                });
    }

    private BayeuxClient connected(String transport) throws InterruptedException {
        return Clients.connect(fixture.client(transport, config));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void publishedMessagesReachSubscribersAndRemoteCallsReturn(String transport) throws Exception {
        BayeuxClient alice = connected(transport);
        BayeuxClient bob = connected(transport);
        assertEquals(transport, alice.getTransportName());

        BlockingQueue<Message> received = new LinkedBlockingQueue<>();
        subscribe(bob, "/chat/*", (channel, message) -> received.add(message));

        BlockingQueue<Message> published = new LinkedBlockingQueue<>();
        alice.getChannel("/chat/room").publish(Map.of("text", "hi"), published::add);
        assertTrue(next(published).isSuccessful());
        Message message = next(received);
        assertEquals(Map.of("text", "hi"), message.getData());
        assertEquals("/chat/room", message.getChannel());

        BlockingQueue<Message> answers = new LinkedBlockingQueue<>();
        alice.remoteCall("echo", Map.of("n", 42), answers::add);
        assertEquals(Map.of("n", 42), next(answers).getData());

        BlockingQueue<Message> disconnected = new LinkedBlockingQueue<>();
        alice.disconnect(disconnected::add);
        assertTrue(next(disconnected).isSuccessful());
        assertTrue(alice.waitFor(WAIT, BayeuxClient.State.DISCONNECTED));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void wildcardSubscriptionsMatchChildrenOrAllDescendants(String transport) throws Exception {
        BayeuxClient publisher = connected(transport);
        BayeuxClient subscriber = connected(transport);
        BlockingQueue<String> children = new LinkedBlockingQueue<>();
        BlockingQueue<String> descendants = new LinkedBlockingQueue<>();
        subscribe(subscriber, "/chat/*", (channel, message) -> children.add(message.getChannel()));
        subscribe(subscriber, "/chat/**", (channel, message) -> descendants.add(message.getChannel()));

        for (String channel : List.of("/chat/room", "/chat/room/private", "/other/room", "/chat", "/chat/end")) {
            BlockingQueue<Message> reply = new LinkedBlockingQueue<>();
            publisher.getChannel(channel).publish(Map.of("to", channel), reply::add);
            assertTrue(next(reply).isSuccessful());
        }

        // Messages from one publisher arrive in order: once /chat/end is seen, nothing else will come.
        assertEquals(List.of("/chat/room", "/chat/end"), List.of(next(children), next(children)));
        assertEquals(List.of("/chat/room", "/chat/room/private", "/chat/end"),
                List.of(next(descendants), next(descendants), next(descendants)));
        assertTrue(children.isEmpty() && descendants.isEmpty(), () -> "extra deliveries: " + children + " " + descendants);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void topLevelWildcardsMatchEveryChannelOrEveryFirstLevelOne(String transport) throws Exception {
        BayeuxClient publisher = connected(transport);
        BayeuxClient subscriber = connected(transport);
        BlockingQueue<String> firstLevel = new LinkedBlockingQueue<>();
        BlockingQueue<String> every = new LinkedBlockingQueue<>();
        subscribe(subscriber, "/*", (channel, message) -> firstLevel.add(message.getChannel()));
        subscribe(subscriber, "/**", (channel, message) -> every.add(message.getChannel()));

        for (String channel : List.of("/chat/room", "/news", "/chat/room/private", "/end")) {
            BlockingQueue<Message> reply = new LinkedBlockingQueue<>();
            publisher.getChannel(channel).publish(Map.of("to", channel), reply::add);
            assertTrue(next(reply).isSuccessful());
        }

        assertEquals(List.of("/news", "/end"), List.of(next(firstLevel), next(firstLevel)));
        assertEquals(List.of("/chat/room", "/news", "/chat/room/private", "/end"),
                List.of(next(every), next(every), next(every), next(every)));
        assertTrue(firstLevel.isEmpty() && every.isEmpty(), () -> "extra deliveries: " + firstLevel + " " + every);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void theEchoServiceAnswersAServiceChannelListenerAndARemoteCall(String transport) throws Exception {
        BayeuxClient client = connected(transport);

        BlockingQueue<Message> echoes = new LinkedBlockingQueue<>();
        client.getChannel("/service/echo").addListener((io.bayeux.api.client.ClientSessionChannel.MessageListener) (channel, message) -> {
            if (message.getData() != null) {
                echoes.add(message);
            }
        });
        BlockingQueue<Message> published = new LinkedBlockingQueue<>();
        client.getChannel("/service/echo").publish(Map.of("text", "ping"), published::add);
        assertTrue(next(published).isSuccessful());
        Message echo = next(echoes);
        assertEquals("/service/echo", echo.getChannel());
        assertEquals(Map.of("text", "ping"), echo.getData());

        BlockingQueue<Message> answers = new LinkedBlockingQueue<>();
        client.remoteCall("/echo", List.of(1, "two", Map.of("three", 3)), answers::add);
        Message answer = next(answers);
        assertTrue(answer.isSuccessful(), () -> "failed: " + answer);
        assertEquals(List.of(1, "two", Map.of("three", 3)), answer.getData());
    }
}
