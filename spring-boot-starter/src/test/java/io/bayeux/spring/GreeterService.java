package io.bayeux.spring;

import io.bayeux.annotation.Configure;
import io.bayeux.annotation.Listener;
import io.bayeux.annotation.RemoteCall;
import io.bayeux.annotation.Service;
import io.bayeux.annotation.Session;
import io.bayeux.annotation.Subscription;
import io.bayeux.api.Message;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ConfigurableServerChannel;
import io.bayeux.api.server.LocalSession;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Inject;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A service as a Spring bean: Spring injects it (the server through {@code @Inject}, a bean of the
 * application's through its constructor) and runs its lifecycle methods; the starter registers it.
 */
@Service("greeter")
public class GreeterService {
    /** What the lifecycle methods saw, in order. */
    final List<String> events = new CopyOnWriteArrayList<>();
    private final Greeting greeting;
    @Inject
    BayeuxServer bayeux;
    @Session
    LocalSession session;

    public GreeterService(Greeting greeting) {
        this.greeting = greeting;
    }

    /** A bean of the application's, which the Bayeux processor knows nothing of. */
    public record Greeting(String prefix) {
    }

    @Configure("/greet/**")
    void configure(ConfigurableServerChannel channel) {
        channel.setPersistent(true);
    }

    @Subscription("/greet/in")
    public void greetIn(Message message) {
        session.getChannel("/greet/out").publish(greeting.prefix() + message.getData());
    }

    @Listener("/greet/in")
    public void heard(ServerSession from, ServerMessage message) {
        events.add("heard " + message.getData());
    }

    @RemoteCall("greet")
    public void greet(RemoteCall.Caller caller, Object name) {
        caller.result(greeting.prefix() + name);
    }

    @PostConstruct
    void init() {
        events.add("postConstruct session=" + (session != null && session.isHandshook()) + " bayeux=" + (bayeux != null)
                + " listening=" + !bayeux.getChannel("/greet/in").getListeners().isEmpty());
    }

    @PreDestroy
    void destroy() {
        events.add("preDestroy session=" + session.isHandshook());
    }
}
