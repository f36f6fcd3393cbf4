package io.bayeux.annotation.server;

import io.bayeux.annotation.AnnotatedMethods;
import io.bayeux.annotation.Configure;
import io.bayeux.annotation.Listener;
import io.bayeux.annotation.RemoteCall;
import io.bayeux.annotation.Service;
import io.bayeux.annotation.Session;
import io.bayeux.annotation.Subscription;
import io.bayeux.api.ChannelId;
import io.bayeux.api.Message;
import io.bayeux.api.client.ClientSessionChannel;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ConfigurableServerChannel;
import io.bayeux.api.server.LocalSession;
import io.bayeux.api.server.MarkedReference;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Inject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Turns {@link Service} POJOs into server-side services: each gets a {@link LocalSession}, its
 * {@code @Inject} fields and one-argument methods get the {@link BayeuxServer} or an object the
 * application registered ({@linkplain #ServerAnnotationProcessor(BayeuxServer, Object...) injectables}),
 * its {@link Session} fields are set, {@link Configure} methods become channel
 * initializers, {@link Listener} methods channel listeners, {@link Subscription} methods
 * subscriptions of the service's session, {@link RemoteCall} methods answers to remote calls;
 * then {@code @PostConstruct} runs. {@link #deprocess} undoes all of it after {@code @PreDestroy}.
 *
 * <p>Signatures are checked before anything is changed: a wrong one fails {@link #process} with
 * an {@link IllegalArgumentException} naming the class, the method and what was expected.
 * Thread-safe.
 */
public final class ServerAnnotationProcessor {
    private static final Logger LOG = LoggerFactory.getLogger(ServerAnnotationProcessor.class);

    private final BayeuxServer bayeux;
    /** What {@code @Inject} may give, in order of preference: the server first. */
    private final List<Object> injectables;
    /** Guarded by itself; keyed by identity. */
    private final Map<Object, Registration> registrations = new IdentityHashMap<>();
    /** Whether a container injects the services and runs their lifecycle methods (see {@link #forContainer}). */
    private final boolean containerManaged;

    public ServerAnnotationProcessor(BayeuxServer bayeux) {
        this(bayeux, new Object[0]);
    }

    /**
     * @param injectables objects that {@code @Inject} fields and methods of services receive:
     *        each gets the {@link BayeuxServer} when its type fits, else the first injectable,
     *        in this order, whose class is assignable to it
     */
    public ServerAnnotationProcessor(BayeuxServer bayeux, Object... injectables) {
        this(bayeux, injectables, false);
    }

    private ServerAnnotationProcessor(BayeuxServer bayeux, Object[] injectables, boolean containerManaged) {
        this.bayeux = Objects.requireNonNull(bayeux, "bayeux");
        List<Object> all = new ArrayList<>();
        all.add(bayeux);
        for (Object injectable : injectables) {
            all.add(Objects.requireNonNull(injectable, "injectable"));
        }
        this.injectables = List.copyOf(all);
        this.containerManaged = containerManaged;
    }

    /**
     * A processor for services whose container (Spring, CDI) injects their {@code @Inject} members
     * and runs their {@code @PostConstruct} and {@code @PreDestroy} methods itself: {@link #process}
     * and {@link #deprocess} then do only the Bayeux part (the session, {@link Session} fields,
     * {@link Configure}, {@link Listener}, {@link Subscription} and {@link RemoteCall} methods), so
     * that nothing is injected or run twice.
     */
    public static ServerAnnotationProcessor forContainer(BayeuxServer bayeux) {
        return new ServerAnnotationProcessor(bayeux, new Object[0], true);
    }

    /**
     * What a server builder runs at start to install services: instances, or class names to
     * instantiate with their no-argument constructor.
     */
    public static Consumer<BayeuxServer> services(Object... servicesOrClassNames) {
        return server -> {
            ServerAnnotationProcessor processor = new ServerAnnotationProcessor(server);
            for (Object service : servicesOrClassNames) {
                processor.process(service instanceof String className ? instantiate(className) : service);
            }
        };
    }

    /**
     * As {@link #services(Object...)}, with objects for the services' {@code @Inject} fields and
     * methods (see {@link #ServerAnnotationProcessor(BayeuxServer, Object...)}).
     */
    public static Consumer<BayeuxServer> servicesWith(List<?> injectables, Object... servicesOrClassNames) {
        Object[] registered = injectables.toArray();
        return server -> {
            ServerAnnotationProcessor processor = new ServerAnnotationProcessor(server, registered);
            for (Object service : servicesOrClassNames) {
                processor.process(service instanceof String className ? instantiate(className) : service);
            }
        };
    }

    /** Instantiates a service class by name, with its no-argument constructor. */
    public static Object instantiate(String className) {
        try {
            return Class.forName(className).getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException x) {
            throw new IllegalArgumentException("Cannot instantiate service class " + className + ": " + x, x);
        }
    }

    /**
     * Processes a service.
     *
     * @return false when it was already processed
     * @throws IllegalArgumentException when the class is not a {@link Service} or a signature is wrong
     */
    public boolean process(Object service) {
        Class<?> type = service.getClass();
        Service annotation = type.getAnnotation(Service.class);
        if (annotation == null) {
            throw new IllegalArgumentException("Class " + type.getName() + " is not annotated with @" + Service.class.getSimpleName());
        }
        synchronized (registrations) {
            if (registrations.containsKey(service)) {
                return false;
            }
        }
        // Everything that can be checked is checked before anything changes.
        Methods methods = Methods.of(type);
        Map<Field, Object> injected = containerManaged ? Map.of() : injectedFields(type);
        Map<Method, Object> injectedMethods = containerManaged ? Map.of() : injectedMethods(type);
        List<Field> sessionFields = sessionFields(type);
        checkErrorIfExists(methods.configure);
        String name = annotation.value().isEmpty() ? type.getSimpleName() : annotation.value();
        LocalSession session = bayeux.newLocalSession(name);
        session.handshake();
        Registration registration = new Registration(session);
        try {
            injected.forEach((field, value) -> AnnotatedMethods.set(field, service, value));
            injectedMethods.forEach((method, value) -> AnnotatedMethods.invoke(method, service, value));
            for (Field field : sessionFields) {
                AnnotatedMethods.set(field, service, field.getType().isInstance(session) ? session : session.getServerSession());
            }
            configure(service, methods.configure);
            for (Method method : methods.listeners) {
                Listener listener = method.getAnnotation(Listener.class);
                for (String channel : listener.value()) {
                    addListener(registration, channel, new ListenerInvoker(service, method, session, listener.receiveOwnPublishes()));
                }
            }
            for (Method method : methods.subscriptions) {
                for (String channel : method.getAnnotation(Subscription.class).value()) {
                    subscribe(registration, service, method, channel);
                }
            }
            for (Method method : methods.remoteCalls) {
                for (String target : method.getAnnotation(RemoteCall.class).value()) {
                    String channel = target.startsWith("/") ? "/service" + target : "/service/" + target;
                    addListener(registration, channel, new RemoteCallInvoker(service, method, session, bayeux));
                }
            }
            for (Method method : containerManaged ? List.<Method>of() : methods.postConstruct) {
                AnnotatedMethods.invoke(method, service);
            }
        } catch (RuntimeException x) {
            registration.undo();
            session.disconnect();
            throw x;
        }
        synchronized (registrations) {
            registrations.put(service, registration);
        }
        return true;
    }

    /**
     * Undoes {@link #process}: {@code @PreDestroy} runs, then listeners and subscriptions are
     * removed and the service's session disconnected.
     *
     * @return false when the service was not processed
     */
    public boolean deprocess(Object service) {
        Registration registration;
        synchronized (registrations) {
            registration = registrations.remove(service);
        }
        if (registration == null) {
            return false;
        }
        for (Method method : containerManaged ? List.<Method>of() : AnnotatedMethods.find(service.getClass(), PreDestroy.class)) {
            try {
                AnnotatedMethods.invoke(method, service);
            } catch (RuntimeException x) {
                LOG.warn("{} failed", AnnotatedMethods.describe(method), x);
            }
        }
        registration.undo();
        registration.session.disconnect();
        return true;
    }

    /** The session the processor made for a service, or null. */
    public LocalSession sessionOf(Object service) {
        synchronized (registrations) {
            Registration registration = registrations.get(service);
            return registration == null ? null : registration.session;
        }
    }

    private Map<Field, Object> injectedFields(Class<?> type) {
        Map<Field, Object> result = new LinkedHashMap<>();
        for (Field field : AnnotatedMethods.fields(type, Inject.class)) {
            result.put(field, injectable(field.getType(), "Field " + field.getDeclaringClass().getName() + "." + field.getName()));
        }
        return result;
    }

    private Map<Method, Object> injectedMethods(Class<?> type) {
        Map<Method, Object> result = new LinkedHashMap<>();
        for (Method method : AnnotatedMethods.find(type, Inject.class)) {
            if (method.getParameterCount() != 1 || java.lang.reflect.Modifier.isStatic(method.getModifiers())) {
                throw new IllegalArgumentException("Method " + AnnotatedMethods.describe(method)
                        + " annotated with @Inject must be an instance method with one parameter");
            }
            result.put(method, injectable(method.getParameterTypes()[0], "Method " + AnnotatedMethods.describe(method)));
        }
        return result;
    }

    /** The server, else the first registered injectable that fits {@code type}. */
    private Object injectable(Class<?> type, String what) {
        for (Object candidate : injectables) {
            if (type.isInstance(candidate)) {
                return candidate;
            }
        }
        throw new IllegalArgumentException(what + " annotated with @Inject must be a BayeuxServer or the type of an injectable"
                + " registered with the processor, not " + type.getName() + " (registered: "
                + injectables.stream().map(o -> o.getClass().getName()).toList() + ")");
    }

    private static List<Field> sessionFields(Class<?> type) {
        List<Field> fields = AnnotatedMethods.fields(type, Session.class);
        for (Field field : fields) {
            Class<?> fieldType = field.getType();
            if (!fieldType.isAssignableFrom(LocalSession.class) && !fieldType.isAssignableFrom(ServerSession.class)) {
                throw new IllegalArgumentException("Field " + field.getDeclaringClass().getName() + "." + field.getName()
                        + " annotated with @Session must be a LocalSession, ClientSession or ServerSession, not " + fieldType.getName());
            }
        }
        return fields;
    }

    /** Fails before anything changes when a channel configured with {@code errorIfExists} already exists. */
    private void checkErrorIfExists(List<Method> methods) {
        for (Method method : methods) {
            Configure configure = method.getAnnotation(Configure.class);
            if (configure.errorIfExists()) {
                for (String channel : configure.value()) {
                    if (bayeux.getChannel(channel) != null) {
                        throw new IllegalStateException("Channel " + channel + " already exists; "
                                + AnnotatedMethods.describe(method) + " has @Configure(errorIfExists = true)");
                    }
                }
            }
        }
    }

    private void configure(Object service, List<Method> methods) {
        for (Method method : methods) {
            Configure configure = method.getAnnotation(Configure.class);
            for (String channel : configure.value()) {
                ConfigurableServerChannel.Initializer initializer = c -> AnnotatedMethods.invoke(method, service, c);
                MarkedReference<ServerChannel> created = bayeux.createChannelIfAbsent(channel, initializer);
                if (!created.isMarked()) {
                    if (configure.errorIfExists()) {
                        throw new IllegalStateException("Channel " + channel + " already exists; "
                                + AnnotatedMethods.describe(method) + " has @Configure(errorIfExists = true)");
                    }
                    if (configure.configureIfExists()) {
                        initializer.configureChannel(created.getReference());
                    }
                }
            }
        }
    }

    private void addListener(Registration registration, String channel, TemplateInvoker invoker) {
        ChannelId template = ChannelId.of(channel);
        invoker.template = template.isTemplate() ? template : null;
        ServerChannel target = bayeux.createChannelIfAbsent(AnnotatedMethods.listenChannel(channel)).getReference();
        target.addListener(invoker);
        registration.undo.add(() -> target.removeListener(invoker));
    }

    private void subscribe(Registration registration, Object service, Method method, String channel) {
        ChannelId template = ChannelId.of(channel);
        ClientSessionChannel target = registration.session.getChannel(AnnotatedMethods.listenChannel(channel));
        ClientSessionChannel.MessageListener listener = (c, message) -> {
            Map<String, String> bound = template.isTemplate() ? template.bind(message.getChannelId()) : Map.of();
            if (template.isTemplate() && bound.isEmpty()) {
                return;
            }
            AnnotatedMethods.invoke(method, service, AnnotatedMethods.arguments(method, new Object[]{message}, bound));
        };
        target.subscribe(listener);
        registration.undo.add(() -> target.unsubscribe(listener));
    }

    /** The annotated methods of a class, checked. */
    private record Methods(List<Method> configure, List<Method> listeners, List<Method> subscriptions,
                           List<Method> remoteCalls, List<Method> postConstruct) {
        static Methods of(Class<?> type) {
            List<Method> configure = AnnotatedMethods.find(type, Configure.class);
            for (Method method : configure) {
                AnnotatedMethods.checkSignature(method, Configure.class, null, ConfigurableServerChannel.class);
            }
            List<Method> listeners = AnnotatedMethods.find(type, Listener.class);
            for (Method method : listeners) {
                AnnotatedMethods.checkSignature(method, Listener.class, method.getAnnotation(Listener.class).value(),
                        ServerSession.class, ServerMessage.Mutable.class);
                Class<?> returns = method.getReturnType();
                if (returns != void.class && returns != boolean.class && returns != Boolean.class) {
                    throw new IllegalArgumentException(AnnotatedMethods.describe(method) + " annotated with @Listener must return void or boolean, not "
                            + returns.getSimpleName());
                }
            }
            List<Method> subscriptions = AnnotatedMethods.find(type, Subscription.class);
            for (Method method : subscriptions) {
                AnnotatedMethods.checkSignature(method, Subscription.class, method.getAnnotation(Subscription.class).value(), Message.class);
            }
            List<Method> remoteCalls = AnnotatedMethods.find(type, RemoteCall.class);
            for (Method method : remoteCalls) {
                String[] channels = java.util.Arrays.stream(method.getAnnotation(RemoteCall.class).value())
                        .map(t -> t.startsWith("/") ? "/service" + t : "/service/" + t).toArray(String[]::new);
                AnnotatedMethods.checkSignature(method, RemoteCall.class, channels, RemoteCall.Caller.class, Object.class);
            }
            List<Method> postConstruct = AnnotatedMethods.find(type, PostConstruct.class);
            postConstruct.forEach(m -> AnnotatedMethods.checkNoParameters(m, PostConstruct.class));
            AnnotatedMethods.find(type, PreDestroy.class).forEach(m -> AnnotatedMethods.checkNoParameters(m, PreDestroy.class));
            return new Methods(configure, listeners, subscriptions, remoteCalls, postConstruct);
        }
    }

    /** What processing a service added, to be undone. */
    private static final class Registration {
        final LocalSession session;
        final List<Runnable> undo = new ArrayList<>();

        Registration(LocalSession session) {
            this.session = session;
        }

        void undo() {
            for (int i = undo.size() - 1; i >= 0; i--) {
                try {
                    undo.get(i).run();
                } catch (RuntimeException x) {
                    LOG.warn("Undoing a service registration failed", x);
                }
            }
            undo.clear();
        }
    }

    /** A channel listener that binds template parameters. */
    abstract static class TemplateInvoker implements ServerChannel.MessageListener {
        ChannelId template;

        /** The bound parameters, or null when the channel does not fit the template. */
        Map<String, String> bind(ServerChannel channel) {
            if (template == null) {
                return Map.of();
            }
            Map<String, String> bound = template.bind(channel.getChannelId());
            return bound.isEmpty() ? null : bound;
        }
    }

    private static final class ListenerInvoker extends TemplateInvoker {
        private final Object service;
        private final Method method;
        private final LocalSession session;
        private final boolean receiveOwnPublishes;

        ListenerInvoker(Object service, Method method, LocalSession session, boolean receiveOwnPublishes) {
            this.service = service;
            this.method = method;
            this.session = session;
            this.receiveOwnPublishes = receiveOwnPublishes;
        }

        @Override
        public boolean onMessage(ServerSession from, ServerChannel channel, ServerMessage.Mutable message) {
            if (!receiveOwnPublishes && from != null && from == session.getServerSession()) {
                return true;
            }
            Map<String, String> bound = bind(channel);
            if (bound == null) {
                return true;
            }
            Object result = AnnotatedMethods.invoke(method, service, AnnotatedMethods.arguments(method, new Object[]{from, message}, bound));
            return !Boolean.FALSE.equals(result);
        }

        @Override
        public String toString() {
            return "@Listener " + AnnotatedMethods.describe(method);
        }
    }

    private static final class RemoteCallInvoker extends TemplateInvoker {
        private final Object service;
        private final Method method;
        private final LocalSession session;
        private final BayeuxServer bayeux;

        RemoteCallInvoker(Object service, Method method, LocalSession session, BayeuxServer bayeux) {
            this.service = service;
            this.method = method;
            this.session = session;
            this.bayeux = bayeux;
        }

        @Override
        public boolean onMessage(ServerSession from, ServerChannel channel, ServerMessage.Mutable message) {
            Map<String, String> bound = bind(channel);
            if (bound == null || from == null) {
                return true;
            }
            Caller caller = new Caller(bayeux, session, from, channel.getId(), message.getId());
            try {
                AnnotatedMethods.invoke(method, service, AnnotatedMethods.arguments(method, new Object[]{caller, message.getData()}, bound));
            } catch (RuntimeException x) {
                LOG.debug("Remote call {} failed", method, x);
                caller.failure(x.getMessage() == null ? x.getClass().getSimpleName() : x.getMessage());
            }
            return true;
        }

        @Override
        public String toString() {
            return "@RemoteCall " + AnnotatedMethods.describe(method);
        }
    }

    /** Answers one remote call, once, from any thread. */
    private static final class Caller implements RemoteCall.Caller {
        private final BayeuxServer bayeux;
        private final LocalSession service;
        private final ServerSession from;
        private final String channel;
        private final String id;
        private final java.util.concurrent.atomic.AtomicBoolean answered = new java.util.concurrent.atomic.AtomicBoolean();

        Caller(BayeuxServer bayeux, LocalSession service, ServerSession from, String channel, String id) {
            this.bayeux = bayeux;
            this.service = service;
            this.from = from;
            this.channel = channel;
            this.id = id;
        }

        @Override
        public ServerSession getServerSession() {
            return from;
        }

        @Override
        public boolean result(Object result) {
            return answer(true, result);
        }

        @Override
        public boolean failure(Object failure) {
            return answer(false, failure);
        }

        private boolean answer(boolean successful, Object data) {
            if (!answered.compareAndSet(false, true)) {
                return false;
            }
            ServerMessage.Mutable reply = bayeux.newMessage();
            reply.setChannel(channel);
            reply.setId(id);
            reply.setSuccessful(successful);
            // Explicitly, even when null: a reply with data is the answer, one without is a publish reply.
            reply.put(Message.DATA_FIELD, data);
            if (!successful) {
                reply.put(Message.ERROR_FIELD, String.valueOf(data));
            }
            from.deliver(service, reply, io.bayeux.api.Promise.noop());
            return true;
        }
    }

}
