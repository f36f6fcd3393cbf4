package io.bayeux.server.internal;

import io.bayeux.server.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * Removes expired sessions and idle channels, and forgets the browsers that hold no
 * long-polling connect ({@link BrowserHolds#sweep}), every {@code sweepPeriod}: the scheduler
 * decides, the removals (which call the application's listeners) run on the server's
 * executor, each session's on its own, so that a slow listener delays nothing else. A session expires when it has had no connect in progress for longer than its
 * interval plus {@code maxInterval}; a non-persistent channel with no subscribers, listeners
 * or authorizers goes after three idle sweeps.
 */
final class Sweeper {
    private static final Logger LOG = LoggerFactory.getLogger(Sweeper.class);

    private final BayeuxServerImpl server;
    /** Guarded by this. */
    private Scheduler.Cancellable task;
    /** Guarded by this. */
    private boolean running;

    Sweeper(BayeuxServerImpl server) {
        this.server = server;
    }

    synchronized void start() {
        if (!running) {
            running = true;
            schedule();
        }
    }

    synchronized void stop() {
        running = false;
        if (task != null) {
            task.cancel();
            task = null;
        }
    }

    private synchronized void schedule() {
        if (running) {
            task = server.scheduler().schedule(this::run, server.config().sweepPeriod().toMillis());
        }
    }

    private void run() {
        try {
            sweep();
        } catch (RuntimeException x) {
            LOG.warn("Sweep failed", x);
        } finally {
            schedule();
        }
    }

    /** One pass: visible to tests that drive time by hand. */
    void sweep() {
        long now = server.scheduler().now();
        for (ServerSessionImpl session : List.copyOf(server.sessions())) {
            if (session.expiry().isExpired(now)) {
                if (LOG.isDebugEnabled()) {
                    LOG.debug("Session {} expired: {}", session, session.expiry().context(now));
                }
                server.runTimerWork(() -> server.removeSession(session, null, true));
            }
        }
        for (ServerChannelImpl channel : List.copyOf(server.channels())) {
            if (channel.sweep()) {
                server.runTimerWork(() -> server.channelRemoved(channel));
            }
        }
        server.browserHolds().sweep();
        server.histories().sweep(now);
    }
}
