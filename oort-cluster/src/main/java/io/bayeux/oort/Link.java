package io.bayeux.oort;

import io.bayeux.api.server.ServerSession;

/**
 * One link with another node: this node's comet to it, the other node's session here, and how
 * far the two got (handshaken, join batch sent, announced, joined). Every field is confined to
 * the Oort's actor thread, where {@link OortLinks} moves it.
 */
final class Link {
    /** The other node's own URL once it said it, else the URL dialed. */
    String key;
    final OortComet comet;
    String remoteId;
    ServerSession incoming;
    String cometSessionId;
    /** When this link is a link back: the URL by which the other node dialed this one (sent as {@code oortAliasURL}). */
    String alias;
    /** The comet session and incoming session the join batch was sent for, or null. */
    String batchKey;
    /**
     * The {@link #batchKey} whose announcement the other node acknowledged (a successful reply to
     * it on {@code /service/oort}), or null: proof that this comet's session is alive there.
     */
    String acknowledgedKey;
    boolean remoteAnnounced;
    boolean joined;
    boolean closed;
    /** When (System.nanoTime()) to handshake again while disconnected; 0: not yet scheduled. */
    long redialAt;
    /** Attempts since the link was last connected: the back-off grows with them. */
    int redials;

    Link(String key, OortComet comet) {
        this.key = key;
        this.comet = comet;
    }
}
