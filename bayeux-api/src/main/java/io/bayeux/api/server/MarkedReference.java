package io.bayeux.api.server;

/**
 * A reference and a mark: {@link BayeuxServer#createChannelIfAbsent} returns the channel and
 * whether it was created by that call.
 */
public record MarkedReference<T>(T reference, boolean marked) {
    public T getReference() {
        return reference;
    }

    public boolean isMarked() {
        return marked;
    }
}
