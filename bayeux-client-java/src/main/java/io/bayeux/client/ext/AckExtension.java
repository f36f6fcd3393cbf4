package io.bayeux.client.ext;

import io.bayeux.api.Channel;
import io.bayeux.api.Message;
import io.bayeux.api.client.ClientSession;

import java.util.Map;

/**
 * Acknowledged delivery, client side: asks for it in the handshake ({@code ext.ack: true}) and,
 * when the server agrees, acknowledges on every {@code /meta/connect} the last batch received,
 * so that the server sends again whatever a dropped connection lost. Thread-safe.
 */
public final class AckExtension implements ClientSession.Extension {
    public static final String ACK_FIELD = "ack";

    private volatile boolean serverSupportsAcks;
    private volatile long batch = -1;

    @Override
    public boolean sendMeta(ClientSession session, Message.Mutable message) {
        String channel = message.getChannel();
        if (Channel.META_HANDSHAKE.equals(channel)) {
            message.getExt(true).put(ACK_FIELD, Boolean.TRUE);
            batch = -1;
        } else if (Channel.META_CONNECT.equals(channel) && serverSupportsAcks) {
            message.getExt(true).put(ACK_FIELD, batch);
        }
        return true;
    }

    @Override
    public boolean rcvMeta(ClientSession session, Message.Mutable message) {
        String channel = message.getChannel();
        Map<String, Object> ext = message.getExt();
        Object ack = ext == null ? null : ext.get(ACK_FIELD);
        if (Channel.META_HANDSHAKE.equals(channel)) {
            serverSupportsAcks = Boolean.TRUE.equals(ack);
        } else if (Channel.META_CONNECT.equals(channel) && message.isSuccessful() && ack instanceof Number number) {
            batch = number.longValue();
        }
        return true;
    }

    /** Whether the server agreed to acknowledged delivery. */
    public boolean isServerSupportingAcks() {
        return serverSupportsAcks;
    }

    /** The last batch received, or -1. */
    public long getBatch() {
        return batch;
    }
}
