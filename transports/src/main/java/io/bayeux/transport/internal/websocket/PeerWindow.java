package io.bayeux.transport.internal.websocket;

import io.netty.buffer.ByteBuf;

import java.util.Arrays;
import java.util.zip.DataFormatException;

/**
 * What a client that keeps compression context between messages may refer to, for one
 * connection. The server always answers with {@code client_no_context_takeover}, and browsers,
 * Netty, Node's {@code ws} and Faye honour it; some clients (Jetty 12's WebSocket client, and so
 * CometD's Java client on it) compress with context anyway. A connection's first compressed
 * messages are therefore kept (their inflated bytes) until one that follows is seen to need none
 * of them: from then on the connection keeps nothing ({@link #inflate} returns with
 * {@link #needed()} false and the caller drops this object). A message that inflates only with the
 * earlier ones marks the client as keeping context: its last 32 KiB are kept for the connection's
 * life, the memory such a client costs. Loop-confined.
 */
final class PeerWindow {
    /** The LZ77 window of permessage-deflate: 2^15 bytes. */
    private static final int WINDOW = 1 << 15;
    /** Messages inflated without context after which the client counts as honouring no context takeover. */
    private static final int PROOF = 2;

    /** The end of what the client's compressed messages inflated to, at most {@link #WINDOW} bytes; null before the first. */
    private byte[] window;
    private int withoutContext;
    private boolean keepsContext;

    /**
     * The message {@code compressed} inflated, using the earlier ones if it refers to them.
     *
     * @throws MessageInflater.TooLargeException past {@code max} bytes
     * @throws DataFormatException               when it is no deflate data, even with the earlier messages
     */
    byte[] inflate(MessageInflater inflater, ByteBuf compressed, int max) throws MessageInflater.TooLargeException, DataFormatException {
        byte[] inflated;
        if (keepsContext) {
            inflated = inflater.inflate(compressed, max, window);
        } else {
            try {
                inflated = inflater.inflate(compressed, max);
                if (window != null) {
                    withoutContext++;
                }
            } catch (DataFormatException x) {
                if (window == null) {
                    throw x;
                }
                inflated = inflater.inflate(compressed, max, window);
                keepsContext = true;
            }
        }
        if (needed()) {
            keep(inflated);
        } else {
            window = null;
        }
        return inflated;
    }

    /** Whether the connection must keep this object: the client keeps context, or has not shown yet that it does not. */
    boolean needed() {
        return keepsContext || withoutContext < PROOF;
    }

    private void keep(byte[] inflated) {
        if (inflated.length >= WINDOW) {
            window = Arrays.copyOfRange(inflated, inflated.length - WINDOW, inflated.length);
            return;
        }
        int kept = window == null ? 0 : Math.min(window.length, WINDOW - inflated.length);
        byte[] next = new byte[kept + inflated.length];
        if (kept > 0) {
            System.arraycopy(window, window.length - kept, next, 0, kept);
        }
        System.arraycopy(inflated, 0, next, kept, inflated.length);
        window = next;
    }

    @Override
    public String toString() {
        return "PeerWindow[" + (window == null ? 0 : window.length) + " bytes, keepsContext=" + keepsContext + "]";
    }
}
