package io.bayeux.spring;

import io.bayeux.auth.jwt.JwtAuthentication;
import io.bayeux.presence.Presence;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.SmartLifecycle;

import java.util.Objects;

/**
 * On a cluster that keeps presence, associates each session that token authentication lets in
 * with its user there ({@link JwtAuthentication#associateUsers}), so that
 * {@code presence.sendMessage(userId, ...)} reaches the user on whatever node it connected to.
 * Starts after the cluster (an Oort's {@code Seti} exists only once it runs): sessions that came
 * in before are not associated. Spring calls start and stop from one thread at a time.
 */
final class TokenUsersPresence implements SmartLifecycle {
    private final JwtAuthentication authentication;
    private final ObjectProvider<ClusterPresence> clusters;
    /** Written by Spring's lifecycle thread; read from any. */
    private volatile boolean running;

    TokenUsersPresence(JwtAuthentication authentication, ObjectProvider<ClusterPresence> clusters) {
        this.authentication = authentication;
        this.clusters = clusters;
    }

    @Override
    public void start() {
        clusters.orderedStream().map(ClusterPresence::seti).filter(Objects::nonNull).findFirst()
                .ifPresent(authentication::associateUsers);
        running = true;
    }

    @Override
    public void stop() {
        // Each association ends with its session, which the server's stop ends.
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** After the server and its Oort (the Redis cluster starts before both). */
    @Override
    public int getPhase() {
        return BayeuxServerLifecycle.PHASE + 2;
    }

    /** The presence the users are associated in, or null. */
    Presence presence() {
        return clusters.orderedStream().map(ClusterPresence::seti).filter(Objects::nonNull).findFirst().orElse(null);
    }
}
