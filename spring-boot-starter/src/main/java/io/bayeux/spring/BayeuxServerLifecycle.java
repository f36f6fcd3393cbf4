package io.bayeux.spring;

import io.bayeux.transport.NettyBayeuxServer;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.MutablePropertySources;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Starts the auto-configured {@link NettyBayeuxServer} when the application context has made
 * every singleton (so the {@code @Service} beans are registered before the port opens) and stops
 * it when the context closes, before the beans are destroyed. On start it puts the bound port in
 * the environment as {@value #PORT_PROPERTY}, as Spring Boot does {@code local.server.port} for
 * its web server: tests with {@code bayeux.port=0} read it.
 *
 * <p>Runs in phase {@link #PHASE}; a cluster that must be up before the server starts (Redis)
 * runs just before it, one that needs the server's address (Oort) just after. Spring calls
 * {@link #start()} and {@link #stop()} from one thread at a time.
 */
public final class BayeuxServerLifecycle implements SmartLifecycle {
    /** Before Spring Boot's own web server stops (its phase is {@code DEFAULT_PHASE - 1024}), and after it starts. */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 2048;
    /** The environment property that holds the bound port once the server runs. */
    public static final String PORT_PROPERTY = "local.bayeux.port";

    private final NettyBayeuxServer server;
    private final ConfigurableEnvironment environment;
    /** Written by Spring's lifecycle thread; read by {@link #isRunning()} from any. */
    private volatile boolean running;

    public BayeuxServerLifecycle(NettyBayeuxServer server, ConfigurableEnvironment environment) {
        this.server = Objects.requireNonNull(server, "server");
        this.environment = environment;
    }

    @Override
    public void start() {
        try {
            server.start();
        } catch (RuntimeException x) {
            String address = server.settings().host() + ":" + server.settings().port();
            throw new BayeuxStartException("The Bayeux server did not start on " + address,
                    "Free the port, or set bayeux.port to another one (0 picks a free one) or bayeux.host to another address.", x);
        }
        running = true;
        if (environment != null) {
            publishPort(environment, server.port());
        }
    }

    @Override
    public void stop() {
        running = false;
        server.stop();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    private static void publishPort(ConfigurableEnvironment environment, int port) {
        MutablePropertySources sources = environment.getPropertySources();
        Map<String, Object> ports = new HashMap<>();
        ports.put(PORT_PROPERTY, port);
        sources.addFirst(new MapPropertySource("bayeux.ports", ports));
    }

    @Override
    public String toString() {
        return "BayeuxServerLifecycle[" + server + (running ? ", running" : "") + "]";
    }
}
