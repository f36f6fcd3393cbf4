package io.bayeux.server.ext;

import io.bayeux.api.Channel;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.server.NonBlocking;

import java.util.Map;

/**
 * Reliable delivery over an unreliable transport, wire-compatible with CometD's
 * acknowledged-messages extension: the messages of a session are kept until the client
 * acknowledges the {@code /meta/connect} reply that carried them, and sent again until it does.
 *
 * <p>A client opts in by handshaking with {@code "ext": {"ack": true}} (exactly the boolean
 * {@code true}). This extension then installs an {@link AcknowledgedMessagesSessionExtension}
 * on the new session, which answers the handshake with {@code "ext": {"ack": true}} and does
 * the rest; see there for the protocol. Sessions that do not opt in, and local (in-process)
 * sessions, are left alone.
 *
 * <p>Stateless and thread-safe; one instance may serve the whole server:
 * {@code server.addExtension(new AcknowledgedMessagesExtension())}.
 */
public final class AcknowledgedMessagesExtension implements BayeuxServer.Extension, NonBlocking {
    /** The {@code ext} field of the protocol. */
    public static final String ACK_FIELD = "ack";

    @Override
    public boolean rcvMeta(ServerSession from, ServerMessage.Mutable message) {
        if (from != null && !from.isLocalSession() && Channel.META_HANDSHAKE.equals(message.getChannel())) {
            Map<String, Object> ext = message.getExt();
            if (ext != null && Boolean.TRUE.equals(ext.get(ACK_FIELD)) && sessionExtension(from) == null) {
                AcknowledgedMessagesSessionExtension extension = new AcknowledgedMessagesSessionExtension(from);
                from.addExtension(extension);
                from.addListener(extension);
            }
        }
        return true;
    }

    /** The acknowledging extension installed on {@code session}, or {@code null} when it did not opt in. */
    public static AcknowledgedMessagesSessionExtension sessionExtension(ServerSession session) {
        for (ServerSession.Extension extension : session.getExtensions()) {
            if (extension instanceof AcknowledgedMessagesSessionExtension ack) {
                return ack;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return "AcknowledgedMessagesExtension";
    }
}
