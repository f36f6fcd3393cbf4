package io.bayeux.client;

import io.bayeux.api.Message;
import io.bayeux.client.transport.ClientTransport;
import io.bayeux.client.transport.CookieJar;
import io.bayeux.common.HashMapMessage;
import io.netty.channel.EventLoopGroup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Replies that belong to a session the client already left: a long-poll held by the server
 * while the client disconnected is answered late, with {@code reconnect: none}, after the
 * client started its next handshake. The client must not let it end the new session.
 */
class StaleReplyTest {
    /** A transport the test answers by hand: it records what the client sends. */
    private static final class ScriptedTransport implements ClientTransport {
        final BlockingQueue<Message.Mutable> sent = new LinkedBlockingQueue<>();
        volatile Listener listener;

        @Override
        public String name() {
            return "long-polling";
        }

        @Override
        public void init(URI url, CookieJar cookies, EventLoopGroup group, Listener listener) {
            this.listener = listener;
        }

        @Override
        public void send(List<Message.Mutable> messages) {
            sent.addAll(messages);
        }

        @Override
        public void abort() {
        }

        @Override
        public void terminate() {
        }

        Message.Mutable next(String channel) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (System.nanoTime() < deadline) {
                Message.Mutable message = sent.poll(100, TimeUnit.MILLISECONDS);
                if (message != null && channel.equals(message.getChannel())) {
                    return message;
                }
            }
            throw new AssertionError("The client sent no " + channel);
        }

        void reply(Message request, String clientId, Map<String, Object> extra) {
            Message.Mutable reply = new HashMapMessage();
            reply.setChannel(request.getChannel());
            reply.setId(request.getId());
            reply.setClientId(clientId);
            reply.setSuccessful(true);
            reply.putAll(extra);
            listener.onMessages(List.of(reply));
        }
    }

    private BayeuxClient client;

    @AfterEach
    void stop() {
        if (client != null) {
            client.disconnect();
        }
    }

    @Test
    void aLateConnectReplyOfThePreviousSessionDoesNotEndTheNextHandshake() throws Exception {
        ScriptedTransport transport = new ScriptedTransport();
        client = new BayeuxClient("http://127.0.0.1:1/cometd", ClientConfig.builder().build(), transport);
        client.handshake();
        transport.reply(transport.next("/meta/handshake"), "first", Map.of("supportedConnectionTypes", List.of("long-polling")));
        Message.Mutable firstConnect = transport.next("/meta/connect");
        transport.reply(firstConnect, "first", Map.of("advice", Map.of("reconnect", "retry", "interval", 0)));
        assertTrue(client.waitFor(Duration.ofSeconds(5), BayeuxClient.State.CONNECTED));
        Message.Mutable held = transport.next("/meta/connect");

        client.disconnect();
        transport.reply(transport.next("/meta/disconnect"), "first", Map.of());
        assertTrue(client.waitFor(Duration.ofSeconds(5), BayeuxClient.State.DISCONNECTED));

        client.handshake();
        Message.Mutable handshake = transport.next("/meta/handshake");
        // The held connect of the first session is answered only now, as its session is gone.
        transport.reply(held, "first", Map.of("advice", Map.of("reconnect", "none")));
        transport.reply(handshake, "second", Map.of("supportedConnectionTypes", List.of("long-polling")));
        Message.Mutable connect = transport.next("/meta/connect");
        transport.reply(connect, "second", Map.of("advice", Map.of("reconnect", "retry", "interval", 0)));

        assertTrue(client.waitFor(Duration.ofSeconds(5), BayeuxClient.State.CONNECTED), () -> "still " + client);
        assertEquals("second", client.getId());
        assertNotNull(transport.next("/meta/connect"), "the connect loop goes on");
    }
}
