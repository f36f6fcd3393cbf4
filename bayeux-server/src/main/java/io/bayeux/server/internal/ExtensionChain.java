package io.bayeux.server.internal;

import io.bayeux.api.server.BayeuxServer.Extension;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.server.NonBlocking;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The extensions of a server and how messages pass through them, with the sessions' own
 * extensions: incoming in registration order (server ones first), outgoing in reverse order
 * (server ones first). A throwing extension is logged and skipped.
 */
final class ExtensionChain {
    private final BayeuxServerImpl server;
    private final List<Extension> extensions = new CopyOnWriteArrayList<>();
    /** Whether every extension is {@link NonBlocking}: kept as they are added and removed. */
    private volatile boolean nonBlocking = true;

    ExtensionChain(BayeuxServerImpl server) {
        this.server = server;
    }

    // Synchronized: each computes nonBlocking from the list it leaves, and the last to leave it writes last.
    synchronized void add(Extension extension) {
        extensions.add(Objects.requireNonNull(extension, "extension"));
        nonBlocking = allNonBlocking(extensions);
    }

    synchronized void remove(Extension extension) {
        extensions.remove(extension);
        nonBlocking = allNonBlocking(extensions);
    }

    /** Whether every server extension is {@link NonBlocking} (may run on an event loop). */
    boolean isNonBlocking() {
        return nonBlocking;
    }

    static boolean allNonBlocking(List<?> extensions) {
        for (Object extension : extensions) {
            if (!(extension instanceof NonBlocking)) {
                return false;
            }
        }
        return true;
    }

    List<Extension> list() {
        return List.copyOf(extensions);
    }

    /** Incoming message: server extensions, then the session's. @return false when one dropped it */
    boolean incoming(ServerSessionImpl session, ServerMessage.Mutable message) {
        boolean meta = message.isMeta();
        for (Extension extension : extensions) {
            try {
                if (!(meta ? extension.rcvMeta(session, message) : extension.rcv(session, message))) {
                    return false;
                }
            } catch (RuntimeException x) {
                server.logListenerFailure(extension, x);
            }
        }
        if (session != null) {
            for (ServerSession.Extension extension : session.listeners().extensions()) {
                try {
                    if (!(meta ? extension.rcvMeta(session, message) : extension.rcv(session, message))) {
                        return false;
                    }
                } catch (RuntimeException x) {
                    server.logListenerFailure(extension, x);
                }
            }
        }
        return true;
    }

    /** An outgoing published message, once before it fans out. @return false when one dropped it */
    boolean outgoing(ServerSessionImpl from, ServerSessionImpl to, ServerMessage.Mutable message) {
        for (int i = extensions.size() - 1; i >= 0; i--) {
            Extension extension = extensions.get(i);
            try {
                if (!extension.send(from, to, message)) {
                    return false;
                }
            } catch (RuntimeException x) {
                server.logListenerFailure(extension, x);
            }
        }
        return true;
    }

    /**
     * Runs a reply through the outgoing extensions (server ones, then the session's) right
     * before it is written. @return the reply to write, or null when dropped
     */
    ServerMessage reply(Exchange exchange) {
        ServerMessage.Mutable reply = exchange.reply;
        ServerSessionImpl session = exchange.session;
        boolean meta = reply.isMeta();
        for (int i = extensions.size() - 1; i >= 0; i--) {
            Extension extension = extensions.get(i);
            try {
                if (!(meta ? extension.sendMeta(session, reply) : extension.send(session, session, reply))) {
                    return null;
                }
            } catch (RuntimeException x) {
                server.logListenerFailure(extension, x);
            }
        }
        if (session == null) {
            return reply;
        }
        List<ServerSession.Extension> sessionExtensions = session.listeners().extensions();
        ServerMessage result = reply;
        for (int i = sessionExtensions.size() - 1; i >= 0 && result != null; i--) {
            ServerSession.Extension extension = sessionExtensions.get(i);
            try {
                if (meta) {
                    if (!extension.sendMeta(session, reply)) {
                        return null;
                    }
                } else {
                    result = extension.send(session, result);
                }
            } catch (RuntimeException x) {
                server.logListenerFailure(extension, x);
            }
        }
        return result;
    }
}
