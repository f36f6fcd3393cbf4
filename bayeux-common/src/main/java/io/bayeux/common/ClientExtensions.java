package io.bayeux.common;

import io.bayeux.api.Message;
import io.bayeux.api.client.ClientSession;
import io.bayeux.api.client.ClientSession.Extension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The extensions of a client session, in the order they were added: every message sent, and
 * every message received, passes through each of them in that order. An extension that
 * returns false drops the message; one that throws is logged and skipped.
 *
 * <p>Thread-safe: a copy-on-write list, so a message passes through the extensions as they
 * were when it started.
 */
final class ClientExtensions {
    private static final Logger LOG = LoggerFactory.getLogger(ClientExtensions.class);

    private final List<Extension> extensions = new CopyOnWriteArrayList<>();

    void add(Extension extension) {
        extensions.add(extension);
    }

    void remove(Extension extension) {
        extensions.remove(extension);
    }

    /** A snapshot, in order. */
    List<Extension> list() {
        return List.copyOf(extensions);
    }

    /** Passes {@code message}, about to be sent by {@code session}, through the extensions; false when one dropped it. */
    boolean outgoing(ClientSession session, Message.Mutable message) {
        boolean meta = message.isMeta();
        for (Extension extension : extensions) {
            try {
                if (!(meta ? extension.sendMeta(session, message) : extension.send(session, message))) {
                    return false;
                }
            } catch (RuntimeException x) {
                LOG.warn("Extension {} failed on outgoing {}", extension, message, x);
            }
        }
        return true;
    }

    /** Passes {@code message}, received by {@code session}, through the extensions; false when one dropped it. */
    boolean incoming(ClientSession session, Message.Mutable message) {
        boolean meta = message.isMeta();
        for (Extension extension : extensions) {
            try {
                if (!(meta ? extension.rcvMeta(session, message) : extension.rcv(session, message))) {
                    return false;
                }
            } catch (RuntimeException x) {
                LOG.warn("Extension {} failed on incoming {}", extension, message, x);
            }
        }
        return true;
    }
}
