package io.bayeux.annotation.client;

import io.bayeux.annotation.AnnotatedMethods;
import io.bayeux.annotation.Listener;
import io.bayeux.annotation.Service;
import io.bayeux.annotation.Session;
import io.bayeux.annotation.Subscription;
import io.bayeux.api.Channel;
import io.bayeux.api.Message;
import io.bayeux.api.client.ClientSession;
import io.bayeux.api.client.ClientSessionChannel;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns {@link Service} POJOs into client-side services of one {@link ClientSession} (a
 * {@code BayeuxClient}): {@link Session} fields get the session, {@link Listener} methods
 * {@code void m(Message)} listen to (meta) channels, {@link Subscription} methods
 * {@code void m(Message)} are subscribed (at once when the session is handshook, else when its
 * handshake succeeds; the client subscribes again after a re-handshake), and
 * {@code @PostConstruct}/{@code @PreDestroy} run around it. A service may be processed before
 * the client handshakes. Thread-safe.
 */
public final class ClientAnnotationProcessor {
    private static final Logger LOG = LoggerFactory.getLogger(ClientAnnotationProcessor.class);

    private final ClientSession session;
    /** Guarded by itself; keyed by identity. */
    private final Map<Object, List<Runnable>> registrations = new IdentityHashMap<>();

    public ClientAnnotationProcessor(ClientSession session) {
        this.session = session;
    }

    /**
     * @return false when already processed
     * @throws IllegalArgumentException when the class is not a {@link Service} or a signature is wrong
     */
    public boolean process(Object service) {
        Class<?> type = service.getClass();
        if (type.getAnnotation(Service.class) == null) {
            throw new IllegalArgumentException("Class " + type.getName() + " is not annotated with @" + Service.class.getSimpleName());
        }
        synchronized (registrations) {
            if (registrations.containsKey(service)) {
                return false;
            }
        }
        List<Method> listeners = AnnotatedMethods.find(type, Listener.class);
        listeners.forEach(m -> AnnotatedMethods.checkSignature(m, Listener.class, null, Message.class));
        List<Method> subscriptions = AnnotatedMethods.find(type, Subscription.class);
        subscriptions.forEach(m -> AnnotatedMethods.checkSignature(m, Subscription.class, null, Message.class));
        List<Method> postConstruct = AnnotatedMethods.find(type, PostConstruct.class);
        postConstruct.forEach(m -> AnnotatedMethods.checkNoParameters(m, PostConstruct.class));
        AnnotatedMethods.find(type, PreDestroy.class).forEach(m -> AnnotatedMethods.checkNoParameters(m, PreDestroy.class));
        List<Field> fields = AnnotatedMethods.fields(type, Session.class);
        for (Field field : fields) {
            if (!field.getType().isInstance(session)) {
                throw new IllegalArgumentException("Field " + field.getDeclaringClass().getName() + "." + field.getName()
                        + " annotated with @Session must be a ClientSession, not " + field.getType().getName());
            }
        }

        List<Runnable> undo = new ArrayList<>();
        fields.forEach(field -> AnnotatedMethods.set(field, service, session));
        for (Method method : listeners) {
            for (String channel : method.getAnnotation(Listener.class).value()) {
                ClientSessionChannel target = session.getChannel(channel);
                ClientSessionChannel.MessageListener listener = (c, message) -> AnnotatedMethods.invoke(method, service, message);
                target.addListener(listener);
                undo.add(() -> target.removeListener(listener));
            }
        }
        List<Subscribed> subscribed = new ArrayList<>();
        for (Method method : subscriptions) {
            for (String channel : method.getAnnotation(Subscription.class).value()) {
                ClientSessionChannel target = session.getChannel(channel);
                ClientSessionChannel.MessageListener listener = (c, message) -> AnnotatedMethods.invoke(method, service, message);
                subscribed.add(new Subscribed(target, listener));
                undo.add(() -> target.unsubscribe(listener));
            }
        }
        if (!subscribed.isEmpty()) {
            // A subscription made before the handshake fails: subscribe on every successful
            // handshake what is not subscribed (the client itself renews the others after a re-handshake).
            ClientSessionChannel handshake = session.getChannel(Channel.META_HANDSHAKE);
            ClientSessionChannel.MessageListener onHandshake = (c, reply) -> {
                if (reply.isSuccessful()) {
                    subscribeAbsent(subscribed);
                }
            };
            handshake.addListener(onHandshake);
            undo.add(() -> handshake.removeListener(onHandshake));
            if (session.isHandshook()) {
                subscribeAbsent(subscribed);
            }
        }
        for (Method method : postConstruct) {
            AnnotatedMethods.invoke(method, service);
        }
        synchronized (registrations) {
            registrations.put(service, undo);
        }
        return true;
    }

    /** Subscribes the listeners that are not subscribers of their channel, once each. */
    private static void subscribeAbsent(List<Subscribed> subscriptions) {
        synchronized (subscriptions) {
            for (Subscribed subscription : subscriptions) {
                if (!subscription.channel.getSubscribers().contains(subscription.listener)) {
                    subscription.channel.subscribe(subscription.listener);
                }
            }
        }
    }

    /** A {@link Subscription} method's listener on one channel. */
    private record Subscribed(ClientSessionChannel channel, ClientSessionChannel.MessageListener listener) {
    }

    /** Runs {@code @PreDestroy}, then removes the listeners and subscriptions. @return false when not processed */
    public boolean deprocess(Object service) {
        List<Runnable> undo;
        synchronized (registrations) {
            undo = registrations.remove(service);
        }
        if (undo == null) {
            return false;
        }
        for (Method method : AnnotatedMethods.find(service.getClass(), PreDestroy.class)) {
            try {
                AnnotatedMethods.invoke(method, service);
            } catch (RuntimeException x) {
                LOG.warn("{} failed", AnnotatedMethods.describe(method), x);
            }
        }
        for (int i = undo.size() - 1; i >= 0; i--) {
            undo.get(i).run();
        }
        return true;
    }
}
