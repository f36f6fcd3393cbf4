package io.bayeux.annotation;

import io.bayeux.annotation.client.ClientAnnotationProcessor;
import io.bayeux.api.Channel;
import io.bayeux.api.Message;
import io.bayeux.api.client.ClientSession;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.client.BayeuxClient;
import io.bayeux.server.BayeuxServerConfig;
import io.bayeux.transport.NettyBayeuxServer;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Client-side annotated services on a {@link BayeuxClient} talking to a real server. */
class ClientAnnotationsIT {
    /** The subscriptions and unsubscriptions the server saw, as "subscribed /foo by id". */
    private final BlockingQueue<String> subscriptions = new LinkedBlockingQueue<>();
    private NettyBayeuxServer server;
    private BayeuxClient client;

    @Service("client")
    static final class ClientService {
        final List<String> events = new CopyOnWriteArrayList<>();
        final BlockingQueue<Message> meta = new LinkedBlockingQueue<>();
        final BlockingQueue<Message> foo = new LinkedBlockingQueue<>();
        @io.bayeux.annotation.Session
        ClientSession session;

        @Listener("/meta/*")
        public void meta(Message message) {
            meta.add(message);
        }

        @Subscription("/foo")
        public void foo(Message message) {
            foo.add(message);
        }

        @PostConstruct
        void init() {
            events.add("postConstruct " + state());
        }

        @PreDestroy
        void destroy() {
            events.add("preDestroy " + state());
        }

        private String state() {
            return "session=" + (session != null) + " subscribers=" + session.getChannel("/foo").getSubscribers().size()
                    + " listeners=" + session.getChannel("/meta/*").getListeners().size();
        }
    }

    @BeforeEach
    void start() {
        // A short timeout: held connects come back quickly, so the tests see connect replies.
        server = NettyBayeuxServer.builder().port(0)
                .bayeuxConfig(BayeuxServerConfig.builder().timeout(Duration.ofMillis(300)).build())
                .build().start();
        server.bayeux().addListener(new BayeuxServer.SubscriptionListener() {
            @Override
            public void subscribed(ServerSession session, ServerChannel channel, ServerMessage message) {
                subscriptions.add("subscribed " + channel.getId() + " by " + session.getId());
            }

            @Override
            public void unsubscribed(ServerSession session, ServerChannel channel, ServerMessage message) {
                subscriptions.add("unsubscribed " + channel.getId() + " by " + session.getId());
            }
        });
        client = new BayeuxClient(server.uri().toString());
    }

    @AfterEach
    void stop() {
        client.close();
        server.stop();
    }

    private void connect() throws InterruptedException {
        client.handshake();
        assertTrue(client.waitFor(Duration.ofSeconds(5), BayeuxClient.State.CONNECTED));
    }

    private static <T> T poll(BlockingQueue<T> queue) throws InterruptedException {
        T item = queue.poll(5, TimeUnit.SECONDS);
        assertNotNull(item, "nothing within 5 s");
        return item;
    }

    private static Message pollChannel(BlockingQueue<Message> queue, String channel) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            Message message = queue.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (message != null && channel.equals(message.getChannel())) {
                return message;
            }
        }
        throw new AssertionError("no message on " + channel + " within 5 s");
    }

    private void publishFromServer(Object data) {
        server.bayeux().createChannelIfAbsent("/foo").getReference().publish(null, data);
    }

    @Test
    void theSessionIsInjectedMetaListenersSeeConnectRepliesAndSubscriptionsReceive() throws Exception {
        connect();
        ClientService service = new ClientService();
        assertTrue(new ClientAnnotationProcessor(client).process(service));

        assertSame(client, service.session);
        assertEquals("subscribed /foo by " + client.getId(), poll(subscriptions));
        Message connectReply = pollChannel(service.meta, Channel.META_CONNECT);
        assertTrue(connectReply.isSuccessful(), connectReply.toString());

        publishFromServer(Map.of("n", 1));
        Message message = poll(service.foo);
        assertEquals("/foo", message.getChannel());
        assertEquals(Map.of("n", 1), message.getData());
    }

    @Test
    void servicesProcessedBeforeTheHandshakeSubscribeOnceHandshaken() throws Exception {
        ClientService service = new ClientService();
        new ClientAnnotationProcessor(client).process(service);
        connect();

        assertTrue(pollChannel(service.meta, Channel.META_HANDSHAKE).isSuccessful());
        assertEquals("subscribed /foo by " + client.getId(), poll(subscriptions));
        publishFromServer("after handshake");
        assertEquals("after handshake", poll(service.foo).getData());
        assertEquals(1, client.getChannel("/foo").getSubscribers().size());
    }

    @Test
    void aSubscriptionIsRenewedAfterARehandshake() throws Exception {
        connect();
        ClientService service = new ClientService();
        new ClientAnnotationProcessor(client).process(service);
        String first = client.getId();
        assertEquals("subscribed /foo by " + first, poll(subscriptions));

        // The server forgets the session when its next connect arrives, so that connect gets
        // 402::session_unknown (a session removed while its connect is held is told not to reconnect).
        AtomicBoolean forget = new AtomicBoolean(true);
        server.bayeux().addExtension(new BayeuxServer.Extension() {
            @Override
            public boolean rcvMeta(ServerSession from, ServerMessage.Mutable message) {
                if (from != null && Channel.META_CONNECT.equals(message.getChannel()) && from.getId().equals(first)
                        && forget.compareAndSet(true, false)) {
                    server.bayeux().removeSession(server.bayeux().getSession(from.getId()));
                }
                return true;
            }
        });

        assertEquals("unsubscribed /foo by " + first, poll(subscriptions));
        String renewed = poll(subscriptions);
        assertTrue(renewed.startsWith("subscribed /foo by "), renewed);
        assertTrue(client.waitFor(Duration.ofSeconds(5), BayeuxClient.State.CONNECTED));
        assertNotEquals(first, client.getId());
        assertEquals("subscribed /foo by " + client.getId(), renewed);
        Message unknown = pollChannel(service.meta, Channel.META_CONNECT);
        while (unknown.isSuccessful()) {
            unknown = pollChannel(service.meta, Channel.META_CONNECT);
        }
        assertEquals("402::session_unknown", unknown.get(Message.ERROR_FIELD));

        publishFromServer("after rehandshake");
        assertEquals("after rehandshake", poll(service.foo).getData());
        assertEquals(1, client.getChannel("/foo").getSubscribers().size(), "subscribed once");
    }

    @Test
    void lifecycleMethodsRunAroundProcessingAndDeprocessUnsubscribes() throws Exception {
        connect();
        ClientAnnotationProcessor processor = new ClientAnnotationProcessor(client);
        ClientService service = new ClientService();
        processor.process(service);
        assertFalse(processor.process(service), "already processed");
        assertEquals("subscribed /foo by " + client.getId(), poll(subscriptions));
        assertEquals(List.of("postConstruct session=true subscribers=1 listeners=1"), service.events);

        assertTrue(processor.deprocess(service));
        assertFalse(processor.deprocess(service), "already deprocessed");
        assertEquals(List.of("postConstruct session=true subscribers=1 listeners=1",
                "preDestroy session=true subscribers=1 listeners=1"), service.events);
        assertEquals("unsubscribed /foo by " + client.getId(), poll(subscriptions));
        assertEquals(List.of(), client.getChannel("/foo").getSubscribers());
        assertEquals(List.of(), client.getChannel("/meta/*").getListeners());
        assertFalse(server.bayeux().getChannel("/foo").getSubscribers().contains(server.bayeux().getSession(client.getId())));
    }

    @Service
    static final class ListenerTakingString {
        @Listener("/meta/connect")
        public void onMessage(String text) {
        }
    }

    @Service
    static final class SessionOnServerSession {
        @io.bayeux.annotation.Session
        ServerSession session;
    }

    @Service
    static final class PostConstructWithParameter {
        @Subscription("/foo")
        public void foo(Message message) {
        }

        @PostConstruct
        void init(String name) {
        }
    }

    static final class NotAService {
    }

    @Test
    void wrongSignaturesFailProcessingNamingTheClassAndMemberAndRegisterNothing() {
        ClientAnnotationProcessor processor = new ClientAnnotationProcessor(client);
        Map<Object, String> wrong = Map.of(
                new ListenerTakingString(), "onMessage() annotated with @Listener must take (Message",
                new SessionOnServerSession(), "session annotated with @Session must be a ClientSession",
                new PostConstructWithParameter(), "init() annotated with @PostConstruct must take no parameters",
                new NotAService(), " is not annotated with @Service");
        wrong.forEach((service, expected) -> {
            IllegalArgumentException failure = assertThrows(IllegalArgumentException.class, () -> processor.process(service));
            assertTrue(failure.getMessage().contains(service.getClass().getName()), failure.getMessage());
            assertTrue(failure.getMessage().contains(expected), failure.getMessage());
        });
        assertEquals(List.of(), client.getChannel("/foo").getSubscribers());
        assertEquals(List.of(), client.getChannel("/meta/connect").getListeners());
    }
}
