package io.bayeux.annotation;

import io.bayeux.annotation.server.ServerAnnotationProcessor;
import io.bayeux.api.Message;
import io.bayeux.api.server.Authorizer;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ConfigurableServerChannel;
import io.bayeux.api.server.LocalSession;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.client.BayeuxClient;
import io.bayeux.transport.NettyBayeuxServer;
import jakarta.annotation.PostConstruct;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Annotated services installed through the server builder, exercised by a Java
 * {@link BayeuxClient} over real sockets.
 */
class ServerAnnotationsIT {
    private final ListeningService listening = new ListeningService();
    private final CallService calls = new CallService();
    private NettyBayeuxServer server;
    private BayeuxClient client;

    /** Listeners, subscriptions, templates and channel configuration. */
    @Service("listening")
    static final class ListeningService {
        final BlockingQueue<String> listened = new LinkedBlockingQueue<>();
        final BlockingQueue<String> notOwn = new LinkedBlockingQueue<>();
        final BlockingQueue<String> own = new LinkedBlockingQueue<>();
        final BlockingQueue<Message> subscribed = new LinkedBlockingQueue<>();
        final BlockingQueue<String> rooms = new LinkedBlockingQueue<>();
        @io.bayeux.annotation.Session
        LocalSession session;

        @Configure("/guarded")
        public void guard(ConfigurableServerChannel channel) {
            channel.addAuthorizer((operation, id, session, message) -> operation == Authorizer.Operation.PUBLISH
                    ? Authorizer.Result.deny("guarded") : Authorizer.Result.grant());
        }

        @Listener({"/service/x", "/listened"})
        public void listen(ServerSession from, ServerMessage message) {
            listened.add(message.getChannel() + " " + message.getData() + " from " + from.getId());
        }

        @Listener("/service/veto")
        public boolean veto(ServerSession from, ServerMessage.Mutable message) {
            return false;
        }

        @Listener("/own")
        public void notOwn(ServerSession from, ServerMessage message) {
            notOwn.add(String.valueOf(message.getData()));
        }

        @Listener(value = "/own", receiveOwnPublishes = true)
        public void own(ServerSession from, ServerMessage message) {
            own.add(String.valueOf(message.getData()));
        }

        @Subscription("/foo/*")
        public void foo(Message message) {
            subscribed.add(message);
        }

        @Listener("/chat/{room}")
        public void chat(ServerSession from, ServerMessage message, @Param("room") String room) {
            rooms.add(room);
        }
    }

    /** Remote calls, answered at once, later, with failures. */
    @Service("calls")
    static final class CallService {
        final BlockingQueue<String> callers = new LinkedBlockingQueue<>();
        final List<String> events = new CopyOnWriteArrayList<>();
        @Inject
        BayeuxServer bayeux;

        @PostConstruct
        void init() {
            ServerChannel echo = bayeux.getChannel("/service/echo");
            events.add("postConstruct listening=" + (echo != null && echo.getListeners().size() == 1));
        }

        @RemoteCall("echo")
        public void echo(RemoteCall.Caller caller, Object data) {
            String id = caller.getServerSession().getId();
            callers.add(id + " known=" + (bayeux.getSession(id) == caller.getServerSession()));
            caller.result(data);
        }

        @RemoteCall("fail")
        public void fail(RemoteCall.Caller caller, Object data) {
            caller.failure(Map.of("reason", "nope"));
        }

        @RemoteCall("later")
        public void later(RemoteCall.Caller caller, Object data) {
            CompletableFuture.runAsync(() -> caller.result(Map.of("late", data)),
                    CompletableFuture.delayedExecutor(100, TimeUnit.MILLISECONDS));
        }

        @RemoteCall("nothing")
        public void nothing(RemoteCall.Caller caller, Object data) {
            caller.result(null);
        }

        @RemoteCall("throws")
        public void throwing(RemoteCall.Caller caller, Object data) {
            throw new IllegalStateException("boom");
        }

        @RemoteCall("members/{room}")
        public void members(RemoteCall.Caller caller, Object data, @Param("room") String room) {
            caller.result(List.of(room, data));
        }
    }

    /** A service the builder instantiates from its class name. */
    @Service("named")
    public static final class NamedService {
        @RemoteCall("named")
        public void named(RemoteCall.Caller caller, Object data) {
            caller.result("named " + data);
        }
    }

    @BeforeEach
    void start() throws Exception {
        server = NettyBayeuxServer.builder().port(0)
                .service(ServerAnnotationProcessor.services(listening, calls, NamedService.class.getName()))
                .build().start();
        client = new BayeuxClient(server.uri().toString());
        client.handshake();
        assertTrue(client.waitFor(Duration.ofSeconds(5), BayeuxClient.State.CONNECTED));
    }

    @AfterEach
    void stop() {
        client.close();
        server.stop();
    }

    private Message publish(String channel, Object data) throws InterruptedException {
        BlockingQueue<Message> replies = new LinkedBlockingQueue<>();
        client.getChannel(channel).publish(data, replies::add);
        return poll(replies);
    }

    private Message call(String target, Object data) throws InterruptedException {
        BlockingQueue<Message> replies = new LinkedBlockingQueue<>();
        client.remoteCall(target, data, replies::add);
        return poll(replies);
    }

    private static <T> T poll(BlockingQueue<T> queue) throws InterruptedException {
        T item = queue.poll(5, TimeUnit.SECONDS);
        assertNotNull(item, "nothing within 5 s");
        return item;
    }

    // --- @Service through the builder

    @Test
    void theBuilderProcessesServiceInstancesAndClassNames() throws Exception {
        List<String> agents = server.bayeux().getSessions().stream().filter(ServerSession::isLocalSession).map(ServerSession::getUserAgent).sorted().toList();
        assertEquals(List.of("local:calls", "local:listening", "local:named"), agents);
        assertEquals(List.of("postConstruct listening=true"), calls.events);
        Message reply = call("named", "hi");
        assertTrue(reply.isSuccessful(), reply.toString());
        assertEquals("named hi", reply.getData());
    }

    // --- @Configure

    @Test
    void configureInstallsTheAuthorizerBeforeAnyRemoteMessage() throws Exception {
        Message reply = publish("/guarded", "x");
        assertFalse(reply.isSuccessful(), reply.toString());
        assertEquals("403:guarded:publish_denied", reply.get(Message.ERROR_FIELD));
    }

    // --- @Listener

    @Test
    void aListenerReceivesWhatARemoteClientPublishesWithoutBeingASubscriber() throws Exception {
        assertTrue(publish("/service/x", Map.of("n", 1)).isSuccessful());
        assertEquals("/service/x {n=1} from " + client.getId(), poll(listening.listened));

        assertTrue(publish("/listened", "hello").isSuccessful());
        assertEquals("/listened hello from " + client.getId(), poll(listening.listened));
        ServerChannel listened = server.bayeux().getChannel("/listened");
        assertFalse(listened.getSubscribers().contains(listening.session.getServerSession()), "a listener is not a subscriber");
        assertFalse(listening.session.getServerSession().getSubscriptions().contains(listened));
    }

    @Test
    void aListenerReturningFalseVetoesTheMessage() throws Exception {
        Message reply = publish("/service/veto", "x");
        assertFalse(reply.isSuccessful(), reply.toString());
        assertEquals("404::message_deleted", reply.get(Message.ERROR_FIELD));
    }

    @Test
    void onlyListenersThatAskForThemSeeTheServicesOwnPublishes() throws Exception {
        listening.session.getChannel("/own").publish("mine");
        assertTrue(publish("/own", "theirs").isSuccessful());
        // The listeners run before the publish reply is sent: both have seen everything they will see.
        assertEquals(List.of("mine", "theirs"), List.copyOf(listening.own));
        assertEquals(List.of("theirs"), List.copyOf(listening.notOwn));
    }

    @Test
    void aTemplateListenerGetsTheBoundParameter() throws Exception {
        assertTrue(publish("/chat/lobby", "hi").isSuccessful());
        assertEquals("lobby", poll(listening.rooms));
        assertTrue(publish("/chat/kitchen", "hi").isSuccessful());
        assertEquals("kitchen", poll(listening.rooms));
    }

    // --- @Subscription

    @Test
    void aSubscriptionIsARealSubscriptionOfTheServicesSessionAndReceivesRemotePublishes() throws Exception {
        ServerChannel wild = server.bayeux().getChannel("/foo/*");
        assertNotNull(wild);
        assertTrue(wild.getSubscribers().contains(listening.session.getServerSession()), wild.getSubscribers().toString());

        assertTrue(publish("/foo/bar", Map.of("n", 2)).isSuccessful());
        Message message = poll(listening.subscribed);
        assertEquals("/foo/bar", message.getChannel());
        assertEquals(Map.of("n", 2), message.getData());
    }

    // --- @RemoteCall

    @Test
    void aRemoteCallResolvesWithTheResult() throws Exception {
        Message reply = call("echo", Map.of("n", 42));
        assertTrue(reply.isSuccessful(), reply.toString());
        assertEquals(Map.of("n", 42), reply.getData());
        assertEquals(client.getId() + " known=true", poll(calls.callers));
    }

    @Test
    void aRemoteCallFailureGivesAFailedReplyWithItsData() throws Exception {
        Message reply = call("fail", "x");
        assertFalse(reply.isSuccessful(), reply.toString());
        assertEquals(Map.of("reason", "nope"), reply.getData());
    }

    @Test
    void aRemoteCallAnsweredLaterFromAnotherThreadStillReachesTheCaller() throws Exception {
        Message reply = call("later", "x");
        assertTrue(reply.isSuccessful(), reply.toString());
        assertEquals(Map.of("late", "x"), reply.getData());
    }

    @Test
    void aRemoteCallAnsweredWithNullStillResolves() throws Exception {
        Message reply = call("nothing", "x");
        assertTrue(reply.isSuccessful(), reply.toString());
        assertTrue(reply.containsKey(Message.DATA_FIELD), reply.toString());
        assertEquals(null, reply.getData());
    }

    @Test
    void anExceptionThrownByARemoteCallBecomesAFailure() throws Exception {
        Message reply = call("throws", "x");
        assertFalse(reply.isSuccessful(), reply.toString());
        assertTrue(String.valueOf(reply.get(Message.ERROR_FIELD)).contains("boom"), reply.toString());
    }

    @Test
    void aTemplateRemoteCallGetsTheBoundParameter() throws Exception {
        Message reply = call("members/lobby", "alice");
        assertTrue(reply.isSuccessful(), reply.toString());
        assertEquals(List.of("lobby", "alice"), reply.getData());
    }

    // --- deprocess

    @Test
    void aDeprocessedServiceNoLongerListensSubscribesOrAnswers() throws Exception {
        ServerAnnotationProcessor processor = new ServerAnnotationProcessor(server.bayeux());
        ListeningService service = new ListeningService();
        CallService callService = new CallService();
        processor.process(service);
        // A second instance of the calls service would answer twice: use its own target instead.
        NamedService named = new NamedService();
        processor.process(named);
        ServerSession session = service.session.getServerSession();

        assertTrue(processor.deprocess(service));
        assertTrue(processor.deprocess(named));
        assertFalse(processor.deprocess(callService), "never processed");
        assertNull(server.bayeux().getSession(session.getId()));
        assertFalse(server.bayeux().getChannel("/foo/*").getSubscribers().contains(session));

        assertTrue(publish("/service/x", "after").isSuccessful());
        assertTrue(publish("/foo/bar", "after").isSuccessful());
        // The builder's services still see them, the deprocessed one does not.
        assertEquals("/service/x after from " + client.getId(), poll(listening.listened));
        poll(listening.subscribed);
        assertEquals(List.of(), List.copyOf(service.listened));
        assertEquals(List.of(), List.copyOf(service.subscribed));
    }
}
