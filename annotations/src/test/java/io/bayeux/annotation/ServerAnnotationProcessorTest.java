package io.bayeux.annotation;

import io.bayeux.annotation.server.ServerAnnotationProcessor;
import io.bayeux.api.Message;
import io.bayeux.api.client.ClientSession;
import io.bayeux.api.server.Authorizer;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ConfigurableServerChannel;
import io.bayeux.api.server.LocalSession;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.server.internal.BayeuxServerImpl;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The server annotation processor against an in-process server: injection, channel
 * configuration, lifecycle, undoing, and the signatures it refuses. What the annotated methods
 * do with messages from remote clients is in {@link ServerAnnotationsIT}.
 */
class ServerAnnotationProcessorTest {
    private BayeuxServerImpl bayeux;
    private ServerAnnotationProcessor processor;

    @BeforeEach
    void start() {
        bayeux = new BayeuxServerImpl().start();
        processor = new ServerAnnotationProcessor(bayeux);
    }

    @AfterEach
    void stop() {
        bayeux.stop();
    }

    // --- @Service, @Inject, @Session

    @Service("injected")
    static final class InjectedService {
        @Inject
        BayeuxServer bayeux;
        @Session
        LocalSession local;
        @Session
        ClientSession client;
        @Session
        ServerSession server;
    }

    @Test
    void aServiceGetsAHandshookLocalSessionNamedByItsAnnotationAndItsFieldsAreInjected() {
        InjectedService service = new InjectedService();
        assertTrue(processor.process(service));

        LocalSession session = processor.sessionOf(service);
        assertNotNull(session);
        assertTrue(session.isHandshook());
        ServerSession serverSession = bayeux.getSession(session.getId());
        assertNotNull(serverSession, "the service's session exists on the server");
        assertSame(session, serverSession.getLocalSession());
        assertEquals("local:injected", serverSession.getUserAgent());

        assertSame(bayeux, service.bayeux);
        assertSame(session, service.local);
        assertSame(session, service.client);
        assertSame(serverSession, service.server);
    }

    interface Clock {
        long now();
    }

    record FixedClock(long now) implements Clock {
    }

    static final class UserStore {
    }

    @Service("withDependencies")
    static final class ServiceWithDependencies {
        @Inject
        BayeuxServer bayeux;
        @Inject
        Clock clock;
        UserStore users;

        @Inject
        void users(UserStore users) {
            this.users = users;
        }
    }

    @Test
    void injectGivesTheObjectsTheApplicationRegisteredWithTheProcessorByType() {
        FixedClock clock = new FixedClock(42);
        UserStore users = new UserStore();
        ServerAnnotationProcessor withInjectables = new ServerAnnotationProcessor(bayeux, users, clock);
        ServiceWithDependencies service = new ServiceWithDependencies();
        assertTrue(withInjectables.process(service));
        assertSame(bayeux, service.bayeux);
        assertSame(clock, service.clock, "by interface");
        assertSame(users, service.users, "through a method");
    }

    @Test
    void servicesWithInjectablesInstallsThemAtStart() {
        UserStore users = new UserStore();
        ServiceWithDependencies service = new ServiceWithDependencies();
        ServerAnnotationProcessor.servicesWith(List.of(users, new FixedClock(7)), service).accept(bayeux);
        assertSame(users, service.users);
        assertEquals(7, service.clock.now());
    }

    @Test
    void anInjectThatNothingRegisteredFitsFailsNamingTheFieldAndTheType() {
        ServiceWithDependencies service = new ServiceWithDependencies();
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> processor.process(service));
        assertTrue(x.getMessage().contains("ServiceWithDependencies.clock") && x.getMessage().contains(Clock.class.getName()), x.getMessage());
        assertNull(processor.sessionOf(service), "nothing was changed");
    }

    @Service
    static final class UnnamedService {
    }

    @Test
    void aServiceWithoutANameIsNamedAfterItsClassAndIsProcessedOnce() {
        UnnamedService service = new UnnamedService();
        assertTrue(processor.process(service));
        assertFalse(processor.process(service), "already processed");
        assertEquals(1, bayeux.getSessions().size(), "one session, however often it is processed");
        assertEquals("local:UnnamedService", processor.sessionOf(service).getServerSession().getUserAgent());
    }

    // --- @Configure

    @Service("configure")
    static final class ConfigureService {
        final Authorizer authorizer = (operation, channel, session, message) -> Authorizer.Result.grant();

        @Configure("/configured")
        public void configure(ConfigurableServerChannel channel) {
            channel.setLazy(true);
            channel.setPersistent(true);
            channel.addAuthorizer(authorizer);
        }
    }

    @Test
    void configureRunsAsTheInitializerSoANewChannelIsNeverSeenUnconfigured() {
        List<String> seen = new CopyOnWriteArrayList<>();
        bayeux.addListener(new BayeuxServer.ChannelListener() {
            @Override
            public void channelAdded(ServerChannel channel) {
                seen.add(channel.getId() + " lazy=" + channel.isLazy() + " persistent=" + channel.isPersistent()
                        + " authorizers=" + channel.getAuthorizers().size());
            }

            @Override
            public void channelRemoved(String channelId) {
            }
        });
        ConfigureService service = new ConfigureService();
        processor.process(service);

        assertEquals(List.of("/configured lazy=true persistent=true authorizers=1"), seen);
        ServerChannel channel = bayeux.getChannel("/configured");
        assertSame(service.authorizer, channel.getAuthorizers().get(0));
    }

    @Test
    void configureConfiguresAnExistingChannelByDefault() {
        ServerChannel existing = bayeux.createChannelIfAbsent("/configured").getReference();
        processor.process(new ConfigureService());
        assertTrue(existing.isLazy());
        assertTrue(existing.isPersistent());
        assertEquals(1, existing.getAuthorizers().size());
    }

    @Service("leaveAlone")
    static final class LeaveExistingAloneService {
        @Configure(value = {"/existing", "/fresh"}, configureIfExists = false)
        public void configure(ConfigurableServerChannel channel) {
            channel.setLazy(true);
        }
    }

    @Test
    void configureIfExistsFalseLeavesAnExistingChannelAloneAndStillConfiguresNewOnes() {
        ServerChannel existing = bayeux.createChannelIfAbsent("/existing").getReference();
        processor.process(new LeaveExistingAloneService());
        assertFalse(existing.isLazy());
        assertTrue(bayeux.getChannel("/fresh").isLazy());
    }

    @Service("strict")
    static final class ErrorIfExistsService {
        @Listener("/service/strict")
        public void listen(ServerSession from, ServerMessage message) {
        }

        @Configure("/fresh")
        public void configureFresh(ConfigurableServerChannel channel) {
            channel.setLazy(true);
        }

        @Configure(value = "/existing", errorIfExists = true)
        public void configureExisting(ConfigurableServerChannel channel) {
            channel.setLazy(true);
        }
    }

    @Test
    void errorIfExistsFailsProcessingWhenTheChannelExistsAndRegistersNothing() {
        ServerChannel existing = bayeux.createChannelIfAbsent("/existing").getReference();
        ErrorIfExistsService service = new ErrorIfExistsService();
        RuntimeException failure = assertThrows(RuntimeException.class, () -> processor.process(service));
        assertTrue(failure.getMessage().contains("/existing"), failure.getMessage());
        assertTrue(failure.getMessage().contains(ErrorIfExistsService.class.getName() + ".configureExisting"), failure.getMessage());
        assertFalse(existing.isLazy());
        assertNull(bayeux.getChannel("/fresh"), "no other channel was configured either");
        assertNothingRegistered(service);
    }

    @Test
    void errorIfExistsConfiguresAChannelThatDoesNotExistYet() {
        processor.process(new ErrorIfExistsService());
        assertTrue(bayeux.getChannel("/existing").isLazy());
    }

    // --- lifecycle and deprocess

    @Service("lifecycle")
    static final class LifecycleService {
        final List<String> events = new CopyOnWriteArrayList<>();
        @Inject
        BayeuxServer bayeux;
        @Session
        LocalSession session;

        @Listener("/service/lifecycle")
        public void listen(ServerSession from, ServerMessage message) {
        }

        @Subscription("/lifecycle/*")
        public void subscribed(Message message) {
        }

        @RemoteCall("lifecycle")
        public void call(RemoteCall.Caller caller, Object data) {
            caller.result(data);
        }

        @PostConstruct
        void init() {
            events.add("postConstruct " + state());
        }

        @PreDestroy
        void destroy() {
            events.add("preDestroy " + state());
        }

        String state() {
            ServerChannel listened = bayeux.getChannel("/service/lifecycle");
            ServerChannel subscribed = bayeux.getChannel("/lifecycle/*");
            return "handshook=" + session.isHandshook()
                    + " listening=" + (listened != null && listened.getListeners().size() == 2)
                    + " subscribed=" + (subscribed != null && subscribed.getSubscribers().contains(session.getServerSession()));
        }
    }

    @Test
    void postConstructRunsAfterInjectionAndRegistrationAndPreDestroyBeforeRemoval() {
        LifecycleService service = new LifecycleService();
        processor.process(service);
        assertEquals(List.of("postConstruct handshook=true listening=true subscribed=true"), service.events);

        processor.deprocess(service);
        assertEquals(List.of("postConstruct handshook=true listening=true subscribed=true",
                "preDestroy handshook=true listening=true subscribed=true"), service.events);
    }

    @Test
    void aContainerProcessorLeavesInjectionAndLifecycleMethodsToTheContainer() {
        ServerAnnotationProcessor container = ServerAnnotationProcessor.forContainer(bayeux);
        LifecycleService service = new LifecycleService();
        assertTrue(container.process(service));
        assertNull(service.bayeux, "@Inject is the container's");
        assertEquals(List.of(), service.events, "@PostConstruct is the container's");
        assertSame(container.sessionOf(service), service.session);
        assertEquals(2, bayeux.getChannel("/service/lifecycle").getListeners().size());

        assertTrue(container.deprocess(service));
        assertEquals(List.of(), service.events, "@PreDestroy is the container's");
        assertEquals(List.of(), bayeux.getChannel("/service/lifecycle").getListeners());
        assertFalse(service.session.isHandshook());
    }

    @Test
    void deprocessRemovesEverythingProcessAddedAndTheServiceCanBeProcessedAgain() {
        LifecycleService service = new LifecycleService();
        processor.process(service);
        LocalSession session = processor.sessionOf(service);
        ServerSession serverSession = session.getServerSession();
        ServerChannel listened = bayeux.getChannel("/service/lifecycle");
        ServerChannel subscribed = bayeux.getChannel("/lifecycle/*");

        assertTrue(processor.deprocess(service));
        assertFalse(processor.deprocess(service), "already deprocessed");
        assertEquals(List.of(), listened.getListeners());
        assertFalse(subscribed.getSubscribers().contains(serverSession));
        assertEquals(Map.of(), Map.copyOf(subscriptionsOf(serverSession)));
        assertFalse(session.isHandshook());
        assertNull(bayeux.getSession(serverSession.getId()), "the service's session is gone");
        assertNull(processor.sessionOf(service));

        assertTrue(processor.process(service));
        LocalSession again = processor.sessionOf(service);
        assertTrue(again.isHandshook());
        assertEquals(2, bayeux.getChannel("/service/lifecycle").getListeners().size());
        assertTrue(bayeux.getChannel("/lifecycle/*").getSubscribers().contains(again.getServerSession()));
        assertEquals(3, service.events.size(), service.events.toString());
        assertTrue(service.events.get(2).startsWith("postConstruct"), service.events.toString());
    }

    private static Map<String, ServerChannel> subscriptionsOf(ServerSession session) {
        Map<String, ServerChannel> result = new java.util.HashMap<>();
        session.getSubscriptions().forEach(c -> result.put(c.getId(), c));
        return result;
    }

    @Service("failingInit")
    static final class FailingPostConstructService {
        @Listener("/service/failing")
        public void listen(ServerSession from, ServerMessage message) {
        }

        @Subscription("/failing")
        public void subscribed(Message message) {
        }

        @PostConstruct
        void init() {
            throw new IllegalStateException("init failed");
        }
    }

    @Test
    void aFailingPostConstructUndoesTheRegistration() {
        FailingPostConstructService service = new FailingPostConstructService();
        IllegalStateException failure = assertThrows(IllegalStateException.class, () -> processor.process(service));
        assertEquals("init failed", failure.getMessage());
        assertEquals(List.of(), bayeux.getChannel("/service/failing").getListeners());
        ServerChannel subscribed = bayeux.getChannel("/failing");
        assertTrue(subscribed == null || subscribed.getSubscribers().isEmpty());
        assertNothingRegistered(service);
    }

    // --- signatures

    @Service
    static final class ListenerTakingString {
        @Listener("/service/x")
        public void onMessage(String text) {
        }
    }

    @Service
    static final class ListenerReturningString {
        @Listener("/service/x")
        public String onMessage(ServerSession from, ServerMessage message) {
            return "";
        }
    }

    @Service
    static final class ConfigureTakingNothing {
        @Configure("/x")
        public void configure() {
        }
    }

    @Service
    static final class RemoteCallWithWrongFirstParameter {
        @RemoteCall("x")
        public void call(String caller, Object data) {
        }
    }

    @Service
    static final class SubscriptionTakingServerMessageMutable {
        @Subscription("/x")
        public void onMessage(ServerMessage.Mutable message) {
        }
    }

    @Service
    static final class PostConstructWithParameter {
        @PostConstruct
        public void init(String name) {
        }
    }

    @Service
    static final class PreDestroyWithParameter {
        @PreDestroy
        public void destroy(String name) {
        }
    }

    @Service
    static final class ParamWithoutAnnotation {
        @Listener("/chat/{room}")
        public void onMessage(ServerSession from, ServerMessage message, String room) {
        }
    }

    @Service
    static final class UnknownParam {
        @Listener("/chat/{room}")
        public void onMessage(ServerSession from, ServerMessage message, @Param("user") String user) {
        }
    }

    @Service
    static final class UnknownRemoteCallParam {
        @RemoteCall("members/{room}")
        public void call(RemoteCall.Caller caller, Object data, @Param("user") String user) {
        }
    }

    @Service
    static final class InjectOnString {
        @Listener("/service/x")
        public void onMessage(ServerSession from, ServerMessage message) {
        }

        @Inject
        String name;
    }

    @Service
    static final class SessionOnString {
        @Configure("/x")
        public void configure(ConfigurableServerChannel channel) {
        }

        @Session
        String session;
    }

    static final class NotAService {
        @Listener("/service/x")
        public void onMessage(ServerSession from, ServerMessage message) {
        }
    }

    static Stream<Arguments> wrongServices() {
        return Stream.of(
                Arguments.of(new ListenerTakingString(), "onMessage", "must take (ServerSession, ServerMessage.Mutable"),
                Arguments.of(new ListenerReturningString(), "onMessage", "must return void or boolean"),
                Arguments.of(new ConfigureTakingNothing(), "configure", "must take (ConfigurableServerChannel)"),
                Arguments.of(new RemoteCallWithWrongFirstParameter(), "call", "must take (RemoteCall.Caller, Object"),
                Arguments.of(new SubscriptionTakingServerMessageMutable(), "onMessage", "must take (Message"),
                Arguments.of(new PostConstructWithParameter(), "init", "@PostConstruct must take no parameters"),
                Arguments.of(new PreDestroyWithParameter(), "destroy", "@PreDestroy must take no parameters"),
                Arguments.of(new ParamWithoutAnnotation(), "onMessage", "@Param String"),
                Arguments.of(new UnknownParam(), "onMessage", "@Param(\"user\") but channel /chat/{room} has no such parameter"),
                Arguments.of(new UnknownRemoteCallParam(), "call", "@Param(\"user\") but channel /service/members/{room} has no such parameter"),
                Arguments.of(new InjectOnString(), "name", "@Inject must be a BayeuxServer or the type of an injectable registered with the processor, not java.lang.String"),
                Arguments.of(new SessionOnString(), "session", "@Session must be a LocalSession, ClientSession or ServerSession"),
                Arguments.of(new NotAService(), "", "is not annotated with @Service"));
    }

    @ParameterizedTest(name = "{index}: {1} {2}")
    @MethodSource("wrongServices")
    void aWrongSignatureFailsProcessingNamingTheClassTheMemberAndWhatWasExpected(Object service, String member, String expected) {
        IllegalArgumentException failure = assertThrows(IllegalArgumentException.class, () -> processor.process(service));
        String message = failure.getMessage();
        assertTrue(message.contains(service.getClass().getName() + (member.isEmpty() ? "" : "." + member)), message);
        assertTrue(message.contains(expected), message);
        assertNothingRegistered(service);
        for (String channel : List.of("/service/x", "/x", "/chat/*", "/service/members/*")) {
            ServerChannel c = bayeux.getChannel(channel);
            assertTrue(c == null || c.getListeners().isEmpty() && c.getSubscribers().isEmpty(), channel + " has " + c);
        }
    }

    @Test
    void processRefusesNull() {
        assertThrows(NullPointerException.class, () -> processor.process(null));
    }

    private void assertNothingRegistered(Object service) {
        assertNull(processor.sessionOf(service));
        List<ServerSession> sessions = new ArrayList<>(bayeux.getSessions());
        assertEquals(List.of(), sessions, "no session left behind");
    }
}
