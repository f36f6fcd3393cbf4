package io.bayeux.transport.internal.http;

import io.bayeux.api.server.BayeuxContext;
import io.bayeux.server.spi.Endpoint;

import java.net.InetSocketAddress;
import java.util.concurrent.Future;

/**
 * One long-polling (or callback-polling) request: messages only ride in its response, so it
 * cannot push.
 */
record HttpEndpoint(String transportName, String browserId, String sessionBrowserId, String userAgent,
                    InetSocketAddress remoteAddress, BayeuxContext bayeuxContext, HoldTimer holds) implements Endpoint {
    @Override
    public boolean canPush() {
        return false;
    }

    /**
     * A held request's timeout is on its connection's event loop, whose one {@link HoldTimer}
     * serves the connection's holds one after the other; what it starts runs on the executor.
     */
    @Override
    public Future<?> schedule(Runnable task, long delayMillis) {
        // Null when the loop is shutting down: the server's scheduler times it.
        return holds.schedule(task, delayMillis);
    }

    /** On the connection's event loop, grouped with the loop's other timers due about then. */
    @Override
    public boolean scheduleGrouped(Runnable task, long delayMillis, long slackMillis) {
        return holds.scheduleGrouped(task, delayMillis, slackMillis);
    }
}
