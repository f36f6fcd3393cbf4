package io.bayeux.api.server;

import io.bayeux.api.Message;

/**
 * A message on the server. A published message is frozen before it fans out: from then on
 * it cannot change, and its JSON form is computed once and shared by every recipient.
 */
public interface ServerMessage extends Message {
    /** The message this one replies to, or {@code null}. */
    ServerMessage getAssociated();

    /** Whether this message may wait for a non-lazy message or its lazy timeout. */
    boolean isLazy();

    /** Whether the message is frozen and can no longer change. */
    boolean isFrozen();

    /**
     * What the network tells about the request that carried this message (for a reply, about
     * the request it answers): remote address, headers, cookies, URL, TLS. {@code null} for a
     * message made on the server. A published message keeps its publisher's context on its way
     * to subscribers; it is never written to the wire.
     */
    BayeuxContext getBayeuxContext();

    interface Mutable extends ServerMessage, Message.Mutable {
        void setAssociated(ServerMessage associated);

        void setLazy(boolean lazy);

        /**
         * A mutable, unfrozen copy of this message (the nested {@code data}, {@code ext} and
         * {@code advice} objects are shared, except {@code ext} and {@code advice} which are
         * copied shallowly so that they can be changed per copy).
         */
        ServerMessage.Mutable copy();
    }
}
