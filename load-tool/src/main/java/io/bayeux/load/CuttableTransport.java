package io.bayeux.load;

import io.bayeux.api.Message;
import io.bayeux.client.transport.ClientTransport;
import io.bayeux.client.transport.CookieJar;
import io.netty.channel.EventLoopGroup;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * A client's transport whose network can be cut for a while ({@code --cut-every} with
 * {@code --cut-for}): {@link #cut} drops its connections, and until the cut ends every send
 * fails at once, as when the network is down, so the client backs off and retries as it would
 * then. Everything else goes to the transport it wraps.
 *
 * <p>Thread-safe: the end of the cut is a volatile; the failures are reported on an event loop,
 * never from inside {@link #send}.
 */
final class CuttableTransport implements ClientTransport {
    private final ClientTransport delegate;
    /** Nanoseconds, as {@link System#nanoTime()}; another clock in tests. */
    private final LongSupplier clock;
    /** The {@link #clock}'s time when the current cut ends; a cut has ended when this is in the past. */
    private volatile long cutUntil;
    private volatile EventLoopGroup group;
    private volatile Listener listener;

    CuttableTransport(ClientTransport delegate) {
        this(delegate, System::nanoTime);
    }

    CuttableTransport(ClientTransport delegate, LongSupplier clock) {
        this.delegate = delegate;
        this.clock = clock;
        this.cutUntil = clock.getAsLong();
    }

    /** Drops the connections; the transport refuses to send for {@code duration}. */
    void cut(Duration duration) {
        // First the refusal, then the abort: what the client sends on hearing of it fails too.
        cutUntil = clock.getAsLong() + duration.toNanos();
        delegate.abort();
    }

    /** Whether a cut is on now. */
    boolean isCut() {
        return cutUntil - clock.getAsLong() > 0;
    }

    @Override
    public String name() {
        return delegate.name();
    }

    @Override
    public void init(URI url, CookieJar cookies, EventLoopGroup group, Listener listener) {
        this.group = group;
        this.listener = listener;
        delegate.init(url, cookies, group, listener);
    }

    @Override
    public void send(List<Message.Mutable> messages) {
        if (isCut()) {
            IOException failure = new IOException("network cut by the load tool (--cut-for)");
            try {
                group.next().execute(() -> listener.onFailure(failure, messages));
            } catch (java.util.concurrent.RejectedExecutionException x) {
                // The event loops are shutting down with the run: nobody is left to tell.
            }
            return;
        }
        delegate.send(messages);
    }

    @Override
    public void abort() {
        delegate.abort();
    }

    @Override
    public void terminate() {
        delegate.terminate();
    }

    @Override
    public String toString() {
        return "CuttableTransport[" + delegate + (isCut() ? ", cut" : "") + "]";
    }
}
