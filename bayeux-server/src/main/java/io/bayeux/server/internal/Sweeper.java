package io.bayeux.server.internal;

import io.bayeux.server.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Removes expired sessions and idle channels, and forgets the browsers that hold no
 * long-polling connect ({@link BrowserHolds#sweep}), every {@code sweepPeriod}: the scheduler
 * decides, the removals (which call the application's listeners) run on the server's
 * executor, each session's on its own, so that a slow listener delays nothing else. A session expires when it has had no connect in progress for longer than its
 * interval plus {@code maxInterval}; a non-persistent channel with no subscribers, listeners
 * or authorizers goes after three idle sweeps. Each sweep also lets the registries of sessions and
 * of adopting connections give back the tables they grew to once most of their entries are gone.
 *
 * <p>A sweep looks only at the sessions {@link SessionExpiry} lists when their expiry starts
 * counting, and takes off the list those it finds suspended (a connect held or in progress) at
 * two sweeps in a row: an idle WebSocket session holds its connect, so a million of them cost
 * a sweep nothing, and a long-polling session that connects again and again stays listed
 * without a change to the list at each connect. The sweep's work is proportional to the
 * sessions between connects, those busy with connects, and the channels.
 */
final class Sweeper {
    private static final Logger LOG = LoggerFactory.getLogger(Sweeper.class);

    private final BayeuxServerImpl server;
    /** Guarded by this. */
    private Scheduler.Cancellable task;
    /** Guarded by this. */
    private boolean running;
    /** Sessions whose expiry counts or did lately; concurrent: added and taken out under each session's lock, read by the sweep. */
    private final Set<ServerSessionImpl> counting = ConcurrentHashMap.newKeySet();

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

    /** Under {@code session}'s lock: its expiry counts from now on; the sweeps look at it until it {@linkplain #unlist leaves}. */
    void list(ServerSessionImpl session) {
        counting.add(session);
    }

    /** Under {@code session}'s lock: its expiry stayed suspended (a connect held) over two sweeps. */
    void unlist(ServerSessionImpl session) {
        counting.remove(session);
    }

    /** How many sessions a sweep looks at now. */
    int countingSessions() {
        return counting.size();
    }

    /** One pass: visible to tests that drive time by hand. */
    void sweep() {
        long now = server.scheduler().now();
        // Weakly consistent: a session that starts counting during the pass is seen by the next one.
        for (ServerSessionImpl session : counting) {
            if (session.isRemoved() || session.localSession() != null) {
                // Removed by a disconnect, or local (never expires): nothing to watch.
                counting.remove(session);
            } else if (session.expiry().swept(now)) {
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
        server.compactRegistries();
        server.histories().sweep(now);
    }
}
