package io.bayeux.server.internal;

import io.bayeux.server.BayeuxServerConfig;

/**
 * What the application set on one session, immutable: -1 (or null) for what it did not, which
 * the server's configuration decides. The session replaces the whole value on a change.
 *
 * @param maxQueue 0 (never a valid setting) when the server's bound applies
 */
record SessionSettings(long interval, long timeout, long maxInterval, Boolean broadcastToPublisher, int maxQueue) {
    /** Nothing set: the value every session starts with, shared. */
    static final SessionSettings NONE = new SessionSettings(-1, -1, -1, null, 0);

    SessionSettings withInterval(long value) {
        return new SessionSettings(value, timeout, maxInterval, broadcastToPublisher, maxQueue);
    }

    SessionSettings withTimeout(long value) {
        return new SessionSettings(interval, value, maxInterval, broadcastToPublisher, maxQueue);
    }

    SessionSettings withMaxInterval(long value) {
        return new SessionSettings(interval, timeout, value, broadcastToPublisher, maxQueue);
    }

    SessionSettings withBroadcastToPublisher(boolean value) {
        return new SessionSettings(interval, timeout, maxInterval, value, maxQueue);
    }

    SessionSettings withMaxQueue(int value) {
        return new SessionSettings(interval, timeout, maxInterval, broadcastToPublisher, value);
    }

    /** The interval in force: this one, or else the server's. */
    long interval(BayeuxServerConfig config) {
        return interval >= 0 ? interval : config.interval().toMillis();
    }

    /** The timeout in force: this one, or else the server's. */
    long timeout(BayeuxServerConfig config) {
        return timeout >= 0 ? timeout : config.timeout().toMillis();
    }

    /** The maxInterval in force: this one, or else the server's. */
    long maxInterval(BayeuxServerConfig config) {
        return maxInterval > 0 ? maxInterval : config.maxInterval().toMillis();
    }

    /** The queue bound in force: this one, or else the server's. */
    int maxQueue(BayeuxServerConfig config) {
        return maxQueue != 0 ? maxQueue : config.maxQueue();
    }

    /** Whether a session's own publishes come back to it: this setting, or else the server's. */
    boolean broadcastToPublisher(BayeuxServerConfig config) {
        return broadcastToPublisher != null ? broadcastToPublisher : config.broadcastToPublisher();
    }
}
