package io.bayeux.server.internal;

import io.bayeux.api.ChannelId;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The channels of one server by name, in one concurrent map looked up on every publish, and
 * how a channel comes into it: {@link #createIfAbsent} configures a new channel exactly once,
 * before anyone can see it, while concurrent creators of the same name wait.
 */
final class ChannelRegistry {
    /** How long a creator waits for another thread's initialization of the same channel. */
    static final int CREATION_WAIT_SECONDS = 30;

    private final Map<String, ServerChannelImpl> channels = new ConcurrentHashMap<>();
    /** The channels being initialized, by name. */
    private final Map<String, Creation> creations = new ConcurrentHashMap<>();

    /** The channel and whether this call made it. */
    record Created(ServerChannelImpl channel, boolean created) {
    }

    ServerChannelImpl get(String id) {
        return channels.get(id);
    }

    /**
     * Returns the channel named {@code name}, making it when absent: {@code factory} makes it and
     * {@code configure} (user code: never called under a lock) runs on it once, on this thread,
     * before it enters the map. Other callers for that name wait (at most
     * {@value #CREATION_WAIT_SECONDS} s) and get it configured; {@code configure} itself may ask
     * for the channel it configures and gets it. Finding an existing channel {@linkplain
     * ServerChannelImpl#touch() touches} it, so the sweeper keeps it a while longer.
     *
     * @throws IllegalArgumentException when the name is not a valid channel name
     * @throws IllegalStateException when another thread's initialization took too long
     */
    Created createIfAbsent(String name, Function<ChannelId, ServerChannelImpl> factory, Consumer<ServerChannelImpl> configure) {
        while (true) {
            ServerChannelImpl existing = channels.get(name);
            if (existing != null) {
                if (existing.touch()) {
                    return new Created(existing, false);
                }
                continue; // swept this instant: it is out of the map now
            }
            ChannelId channelId = ChannelId.of(name);
            Creation mine = new Creation();
            Creation other = creations.putIfAbsent(name, mine);
            if (other != null) {
                if (other.creator == Thread.currentThread()) {
                    return new Created(other.channel, false);
                }
                other.await(name);
                continue;
            }
            try {
                if (channels.get(name) != null) {
                    continue; // made between our look-up and our claim; the loop touches it
                }
                ServerChannelImpl channel = factory.apply(channelId);
                mine.channel = channel;
                configure.accept(channel);
                channels.put(name, channel);
                return new Created(channel, true);
            } finally {
                creations.remove(name, mine);
                mine.done.countDown();
            }
        }
    }

    boolean remove(ServerChannelImpl channel) {
        return channels.remove(channel.getId(), channel);
    }

    Collection<ServerChannelImpl> all() {
        return channels.values();
    }

    /** A channel being initialized: the thread that does it, and a latch for the others. */
    private static final class Creation {
        final Thread creator = Thread.currentThread();
        final CountDownLatch done = new CountDownLatch(1);
        volatile ServerChannelImpl channel;

        void await(String name) {
            try {
                if (!done.await(CREATION_WAIT_SECONDS, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("Channel " + name + " still initializing after "
                            + CREATION_WAIT_SECONDS + " s in " + creator);
                }
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while waiting for the initialization of " + name, x);
            }
        }
    }
}
