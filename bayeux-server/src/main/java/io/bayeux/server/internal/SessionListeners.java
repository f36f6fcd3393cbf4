package io.bayeux.server.internal;

import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.api.server.ServerSession.AddedListener;
import io.bayeux.api.server.ServerSession.Extension;
import io.bayeux.api.server.ServerSession.HeartBeatListener;
import io.bayeux.api.server.ServerSession.MessageListener;
import io.bayeux.api.server.ServerSession.RemoveListener;
import io.bayeux.api.server.ServerSession.ServerSessionListener;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * A session's extensions and listeners (those its queue does not keep), each list immutable:
 * the session replaces the whole value on a change (copy-on-write), and an idle session shares
 * {@link #NONE} instead of a field per list.
 */
record SessionListeners(List<Extension> extensions, List<AddedListener> added, List<RemoveListener> removed,
                        List<HeartBeatListener> heartBeat, List<MessageListener> message) {
    private static final Logger LOG = LoggerFactory.getLogger(SessionListeners.class);
    static final SessionListeners NONE = new SessionListeners(List.of(), List.of(), List.of(), List.of(), List.of());

    /**
     * A message on its way to {@code session}: its extensions' {@code send} (in reverse order;
     * a message one of them replaced is frozen), then its message listeners, which may veto it.
     * A throwing extension or listener is logged and skipped.
     *
     * @return what to queue, or null when an extension dropped it or a listener vetoed it
     */
    ServerMessage send(ServerSession session, ServerSession sender, ServerMessage message) {
        ServerMessage toSend = message;
        for (int i = extensions.size() - 1; i >= 0 && toSend != null; i--) {
            Extension extension = extensions.get(i);
            try {
                toSend = extension.send(session, toSend);
            } catch (RuntimeException x) {
                LOG.warn("Extension {} of {} failed on send of {}", extension, session, toSend, x);
            }
        }
        if (toSend == null) {
            return null;
        }
        if (toSend != message && toSend instanceof ServerMessageImpl impl) {
            impl.freeze();
        }
        for (MessageListener listener : this.message) {
            try {
                if (!listener.onMessage(session, sender, toSend)) {
                    return null;
                }
            } catch (RuntimeException x) {
                LOG.warn("Message listener {} of {} failed on {}", listener, session, toSend, x);
            }
        }
        return toSend;
    }

    /** Whether {@code listener} is of a kind this value keeps. */
    static boolean keeps(ServerSessionListener listener) {
        return listener instanceof AddedListener || listener instanceof RemoveListener
                || listener instanceof HeartBeatListener || listener instanceof MessageListener;
    }

    SessionListeners withExtension(Extension extension) {
        return new SessionListeners(CopyOnWrite.plus(extensions, extension), added, removed, heartBeat, message);
    }

    SessionListeners withoutExtension(Extension extension) {
        return new SessionListeners(CopyOnWrite.minus(extensions, extension), added, removed, heartBeat, message);
    }

    /** This value with {@code listener} added to the list of each kind it is. */
    SessionListeners with(ServerSessionListener listener) {
        return new SessionListeners(extensions,
                listener instanceof AddedListener a ? CopyOnWrite.plus(added, a) : added,
                listener instanceof RemoveListener r ? CopyOnWrite.plus(removed, r) : removed,
                listener instanceof HeartBeatListener h ? CopyOnWrite.plus(heartBeat, h) : heartBeat,
                listener instanceof MessageListener m ? CopyOnWrite.plus(message, m) : message);
    }

    /** This value without {@code listener} in any list. */
    SessionListeners without(ServerSessionListener listener) {
        return new SessionListeners(extensions, CopyOnWrite.minus(added, listener), CopyOnWrite.minus(removed, listener),
                CopyOnWrite.minus(heartBeat, listener), CopyOnWrite.minus(message, listener));
    }
}
