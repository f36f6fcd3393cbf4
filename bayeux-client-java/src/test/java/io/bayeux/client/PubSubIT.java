package io.bayeux.client;

import io.bayeux.api.Message;
import io.bayeux.api.Promise;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.client.transport.ClientTransport;
import io.bayeux.client.transport.LongPollingTransport;
import io.bayeux.client.transport.WebSocketTransport;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PubSubIT {
    private NettyBayeuxServer server;
    private final ClientConfig config = ClientConfig.builder().build();

    @BeforeEach
    void start() {
        server = NettyBayeuxServer.builder().port(0).build().start();
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

    @AfterEach
    void stop() {
        server.stop();
    }

    private BayeuxClient client(String transport) {
        ClientTransport t = transport.equals("websocket") ? new WebSocketTransport(config) : new LongPollingTransport(config);
        return new BayeuxClient(server.uri().toString(), config, t);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void publishedMessagesReachSubscribersAndRemoteCallsReturn(String transport) throws Exception {
        BayeuxClient alice = client(transport);
        BayeuxClient bob = client(transport);
        try {
            alice.handshake();
            bob.handshake();
            assertTrue(alice.waitFor(Duration.ofSeconds(5), BayeuxClient.State.CONNECTED));
            assertTrue(bob.waitFor(Duration.ofSeconds(5), BayeuxClient.State.CONNECTED));
            assertEquals(transport, alice.getTransportName());

            BlockingQueue<Message> received = new LinkedBlockingQueue<>();
            BlockingQueue<Message> subscribed = new LinkedBlockingQueue<>();
            bob.getChannel("/chat/*").subscribe((channel, message) -> received.add(message), subscribed::add);
            assertTrue(subscribed.poll(5, TimeUnit.SECONDS).isSuccessful());

            BlockingQueue<Message> published = new LinkedBlockingQueue<>();
            alice.getChannel("/chat/room").publish(Map.of("text", "hi"), published::add);
            assertTrue(published.poll(5, TimeUnit.SECONDS).isSuccessful());
            Message message = received.poll(5, TimeUnit.SECONDS);
            assertNotNull(message);
            assertEquals(Map.of("text", "hi"), message.getData());
            assertEquals("/chat/room", message.getChannel());

            BlockingQueue<Message> answers = new LinkedBlockingQueue<>();
            alice.remoteCall("echo", Map.of("n", 42), answers::add);
            Message answer = answers.poll(5, TimeUnit.SECONDS);
            assertNotNull(answer);
            assertEquals(Map.of("n", 42), answer.getData());

            BlockingQueue<Message> disconnected = new LinkedBlockingQueue<>();
            alice.disconnect(disconnected::add);
            assertTrue(disconnected.poll(5, TimeUnit.SECONDS).isSuccessful());
            assertTrue(alice.waitFor(Duration.ofSeconds(5), BayeuxClient.State.DISCONNECTED));
        } finally {
            alice.close();
            bob.close();
        }
    }
}
