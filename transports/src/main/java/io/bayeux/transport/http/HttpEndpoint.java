package io.bayeux.transport.http;

import io.bayeux.api.server.BayeuxContext;
import io.bayeux.server.spi.Endpoint;
import io.netty.channel.EventLoop;

import java.net.InetSocketAddress;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * One long-polling (or callback-polling) request: messages only ride in its response, so it
 * cannot push.
 */
record HttpEndpoint(String transportName, String browserId, String sessionBrowserId, String userAgent,
                    InetSocketAddress remoteAddress, BayeuxContext bayeuxContext, EventLoop loop) implements Endpoint {
    @Override
    public boolean canPush() {
        return false;
    }

    /** A held request's timeout is a timer on its connection's event loop; what it starts runs on the executor. */
    @Override
    public Future<?> schedule(Runnable task, long delayMillis) {
        try {
            return loop.schedule(task, Math.max(0, delayMillis), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException x) {
            // The loop is shutting down: the server's scheduler times it.
            return null;
        }
    }
}
