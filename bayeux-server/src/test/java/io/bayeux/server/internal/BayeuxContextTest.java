package io.bayeux.server.internal;

import io.bayeux.api.server.BayeuxContext;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.LocalSession;
import io.bayeux.api.server.SecurityPolicy;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.server.spi.Connection;
import io.bayeux.server.spi.Endpoint;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/** The endpoint's {@link BayeuxContext} reaches the message, its reply and the handling thread. */
class BayeuxContextTest extends ServerTestSupport {
    /** What a listener saw: the message's context and the thread's. */
    private record Seen(String where, BayeuxContext message, BayeuxContext thread) {
    }

    @Test
    void thePolicyListenersAndExtensionsSeeTheContextOfTheMessageOnItAndOnTheThread() throws Exception {
        FixedContext context = new FixedContext("10.1.2.3");
        List<Seen> seen = new CopyOnWriteArrayList<>();
        server.setSecurityPolicy(new SecurityPolicy() {
            @Override
            public boolean canHandshake(BayeuxServer bayeux, ServerSession session, ServerMessage message) {
                seen.add(new Seen("policy", message.getBayeuxContext(), bayeux.getContext()));
                return true;
            }
        });
        server.addListener(new BayeuxServer.SessionListener() {
            @Override
            public void sessionAdded(ServerSession session, ServerMessage message) {
                seen.add(new Seen("sessionAdded", message.getBayeuxContext(), server.getContext()));
            }

            @Override
            public void sessionRemoved(ServerSession session, ServerMessage message, boolean timeout) {
            }
        });
        server.addExtension(new BayeuxServer.Extension() {
            @Override
            public boolean sendMeta(ServerSession to, ServerMessage.Mutable message) {
                seen.add(new Seen("sendMeta", message.getBayeuxContext(), server.getContext()));
                return true;
            }
        });
        server.createChannelIfAbsent("/chat", channel -> channel.addListener((ServerChannel.MessageListener) (from, ch, message) -> {
            seen.add(new Seen("publish", message.getBayeuxContext(), server.getContext()));
            return true;
        }));
        Connection connection = server.newConnection(new ContextEndpoint(context));

        Map<String, Object> handshake = send(connection, "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"long-polling\"]}]").get(0);
        send(connection, "[{\"channel\":\"/chat\",\"clientId\":\"" + handshake.get("clientId") + "\",\"data\":1}]");

        assertEquals(List.of("policy", "sessionAdded", "sendMeta", "publish"), seen.stream().map(Seen::where).toList());
        for (Seen s : seen) {
            assertSame(context, s.message(), s.where());
            assertSame(context, s.thread(), s.where());
        }
        assertNull(server.getContext(), "nothing is left on the thread once the message is handled");
    }

    @Test
    void aLocalSessionPublishingFromAListenerHasNoContextAndTheOuterOneComesBack() throws Exception {
        FixedContext context = new FixedContext("10.9.9.9");
        LocalSession service = server.newLocalSession("service");
        service.handshake();
        List<Seen> seen = new ArrayList<>();
        server.createChannelIfAbsent("/echo", channel -> channel.addListener((ServerChannel.MessageListener) (from, ch, message) -> {
            seen.add(new Seen("echo", message.getBayeuxContext(), server.getContext()));
            service.getChannel("/service/inner").publish("inner");
            seen.add(new Seen("after", message.getBayeuxContext(), server.getContext()));
            return true;
        }));
        server.createChannelIfAbsent("/service/inner", channel -> channel.addListener((ServerChannel.MessageListener) (from, ch, message) -> {
            seen.add(new Seen("inner", message.getBayeuxContext(), server.getContext()));
            return true;
        }));
        Connection connection = server.newConnection(new ContextEndpoint(context));
        Map<String, Object> handshake = send(connection, "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"long-polling\"]}]").get(0);

        send(connection, "[{\"channel\":\"/echo\",\"clientId\":\"" + handshake.get("clientId") + "\",\"data\":1}]");

        assertEquals(List.of("echo", "inner", "after"), seen.stream().map(Seen::where).toList());
        assertSame(context, seen.get(0).thread());
        assertNull(seen.get(1).message(), "a message made on the server has no context");
        assertNull(seen.get(1).thread());
        assertSame(context, seen.get(2).thread(), "the outer message's context is back");
    }

    @SuppressWarnings("unchecked")
    private List<Map<String, Object>> send(Connection connection, String json) throws Exception {
        CompletableFuture<List<ServerMessage>> replies = new CompletableFuture<>();
        connection.handle(server.decode(json.getBytes(StandardCharsets.UTF_8)), replies::complete);
        List<ServerMessage> messages = replies.get(5, TimeUnit.SECONDS);
        for (ServerMessage reply : messages) {
            if (reply.getAssociated() != null) {
                assertSame(connection.endpoint().bayeuxContext(), reply.getBayeuxContext(), "a reply carries its request's context");
            }
        }
        return (List<Map<String, Object>>) server.jsonCodec().parse(server.encode(messages));
    }

    private record ContextEndpoint(BayeuxContext bayeuxContext) implements Endpoint {
        @Override
        public String transportName() {
            return "long-polling";
        }

        @Override
        public boolean canPush() {
            return false;
        }
    }

    /** A context with only a remote address. */
    private record FixedContext(String host) implements BayeuxContext {
        @Override
        public InetSocketAddress getRemoteAddress() {
            return new InetSocketAddress(host, 40000);
        }

        @Override
        public InetSocketAddress getLocalAddress() {
            return null;
        }

        @Override
        public String getHeader(String name) {
            return null;
        }

        @Override
        public List<String> getHeaderValues(String name) {
            return List.of();
        }

        @Override
        public String getCookie(String name) {
            return null;
        }

        @Override
        public String getParameter(String name) {
            return null;
        }

        @Override
        public List<String> getParameterValues(String name) {
            return List.of();
        }

        @Override
        public String getURL() {
            return "http://test/cometd";
        }

        @Override
        public String getContextPath() {
            return "/cometd";
        }

        @Override
        public String getProtocol() {
            return "HTTP/1.1";
        }

        @Override
        public boolean isSecure() {
            return false;
        }

        @Override
        public String getTransportName() {
            return "long-polling";
        }
    }
}
