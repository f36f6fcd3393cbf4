package io.bayeux.transport.internal.websocket;

import io.bayeux.transport.WebSocketCompression;
import io.netty.channel.EventLoop;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * What the compression contexts of one event loop's connections share: the buffers they deflate
 * from and into, and the list of those that hold a deflater, with the timer that drops each one once
 * its connection has sent nothing compressed for the release time. The timer is one task on
 * the loop, scheduled only while some context is held: an idle loop has none, and a round
 * looks only at the contexts held, not at every connection.
 *
 * <p>Loop-confined, but for the counters, which are the server's and thread-safe.
 */
final class LoopContexts {
    private final EventLoop loop;
    final WebSocketCompression.Context settings;
    /** Messages compressed by the server's deflaters, shared and per connection. */
    final LongAdder compressions;
    /** The contexts that hold a deflater, server-wide. */
    private final AtomicInteger held;
    private final LongSupplier nanoTime;
    private final long releaseNanos;
    /** The contexts of this loop that hold a deflater. */
    private final List<ContextDeflater> live = new ArrayList<>();
    /** Whether the release round is scheduled. */
    private boolean scheduled;
    /** Where messages are deflated to before their frame is made; grows to the largest output. */
    byte[] scratch = new byte[1024];
    /** Where a frame of several messages is put together before it is deflated; grows to the largest. */
    private byte[] input = new byte[1024];

    LoopContexts(EventLoop loop, WebSocketCompression compression, LongAdder compressions, AtomicInteger held, LongSupplier nanoTime) {
        this.loop = loop;
        this.settings = compression.context();
        this.compressions = compressions;
        this.held = held;
        this.nanoTime = nanoTime;
        this.releaseNanos = settings.releaseAfter().toNanos();
    }

    /** The loop's buffer for a frame's input of {@code length} bytes. */
    byte[] input(int length) {
        if (input.length < length) {
            input = new byte[Math.max(length, input.length * 2)];
        }
        return input;
    }

    long now() {
        return nanoTime.getAsLong();
    }

    /** {@code context} made its deflater: it is dropped once idle for the release time. */
    void holding(ContextDeflater context) {
        live.add(context);
        held.incrementAndGet();
        if (!scheduled) {
            scheduled = true;
            schedule();
        }
    }

    private void schedule() {
        // Half the release time: a deflater is dropped between one and one and a half release times after its last message.
        loop.schedule(this::releaseIdle, Math.max(TimeUnit.MILLISECONDS.toNanos(5), releaseNanos / 2), TimeUnit.NANOSECONDS);
    }

    /** On the loop: drops the deflaters idle for the release time; runs again while any is held. */
    void releaseIdle() {
        long now = now();
        for (int i = live.size() - 1; i >= 0; i--) {
            ContextDeflater context = live.get(i);
            if (context.releaseIfIdle(now, releaseNanos)) {
                // Order does not matter: the last one takes the place of the one dropped.
                ContextDeflater last = live.remove(live.size() - 1);
                if (i < live.size()) {
                    live.set(i, last);
                }
                held.decrementAndGet();
            }
        }
        if (live.isEmpty()) {
            scheduled = false;
        } else {
            schedule();
        }
    }

    /** The contexts of this loop holding a deflater. */
    int size() {
        return live.size();
    }

    @Override
    public String toString() {
        return "LoopContexts[" + live.size() + " held, " + settings + "]";
    }
}
