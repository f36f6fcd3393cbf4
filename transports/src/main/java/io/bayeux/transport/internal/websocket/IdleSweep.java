package io.bayeux.transport.internal.websocket;

import io.netty.channel.EventLoop;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Closes the WebSocket connections of one event loop that read and wrote nothing for the idle
 * timeout: one periodic task per loop instead of a timer (and a handler) per connection. Each
 * round, on the loop, looks at the loop's connections: one that was active since the last
 * round is marked quiet from now on; one that stayed quiet for the idle timeout is closed
 * (1001 "Idle"). So a connection is closed between the idle timeout and the idle timeout plus
 * a period after its last read or write, never before.
 *
 * <p>The loop's WebSocket connections are linked through their endpoints (two references each,
 * no node): a round visits those and nothing else, neither the loop's HTTP connections nor the
 * other loops'. Loop-confined: connections join and leave on their loop.
 */
final class IdleSweep implements Runnable {
    /** The longest period between two rounds; shorter idle timeouts get a quarter of theirs. */
    static final Duration MAX_PERIOD = Duration.ofSeconds(1);
    private final long idleNanos;
    /** The loop's first WebSocket connection, or null. */
    private WebSocketEndpoint first;

    private IdleSweep(long idleNanos) {
        this.idleNanos = idleNanos;
    }

    /** The sweep of {@code loop}, started: it runs until the loop shuts down. */
    static IdleSweep start(EventLoop loop, Duration idleTimeout) {
        long idleNanos = idleTimeout.toNanos();
        long period = Math.max(TimeUnit.MILLISECONDS.toNanos(10), Math.min(MAX_PERIOD.toNanos(), idleNanos / 4));
        IdleSweep sweep = new IdleSweep(idleNanos);
        loop.scheduleAtFixedRate(sweep, period, period, TimeUnit.NANOSECONDS);
        return sweep;
    }

    /** On the loop: {@code endpoint}'s connection is looked at from the next round on. */
    void add(WebSocketEndpoint endpoint) {
        if (endpoint.sweptBefore != null || first == endpoint) {
            return;
        }
        endpoint.sweptAfter = first;
        if (first != null) {
            first.sweptBefore = endpoint;
        }
        first = endpoint;
    }

    /** On the loop: {@code endpoint}'s connection is no longer looked at; nothing when it was not. */
    void remove(WebSocketEndpoint endpoint) {
        WebSocketEndpoint before = endpoint.sweptBefore;
        WebSocketEndpoint after = endpoint.sweptAfter;
        if (before == null && first != endpoint) {
            return;
        }
        if (before == null) {
            first = after;
        } else {
            before.sweptAfter = after;
        }
        if (after != null) {
            after.sweptBefore = before;
        }
        endpoint.sweptBefore = null;
        endpoint.sweptAfter = null;
    }

    @Override
    public void run() {
        long now = System.nanoTime();
        WebSocketEndpoint endpoint = first;
        while (endpoint != null) {
            // Read before closing: a closed connection leaves the list (later, on this loop).
            WebSocketEndpoint next = endpoint.sweptAfter;
            if (endpoint.idleFor(now, idleNanos)) {
                endpoint.closeIdle();
            }
            endpoint = next;
        }
    }
}
