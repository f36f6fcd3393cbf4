package io.bayeux.oort;

import io.bayeux.client.BayeuxClient;

/**
 * The outgoing half of a link: this node's {@link BayeuxClient} connected to another node.
 * The remote id and URL are what the other node said in its handshake reply.
 */
public final class OortComet {
    private final String url;
    private final BayeuxClient client;
    private volatile String remoteId;
    private volatile String remoteURL;

    OortComet(String url, BayeuxClient client) {
        this.url = url;
        this.client = client;
    }

    /** The URL this node dials. */
    public String getURL() {
        return url;
    }

    /** The other node's id from its last handshake reply, or null before one. */
    public String getRemoteId() {
        return remoteId;
    }

    /** The other node's own URL from its last handshake reply, or null before one. */
    public String getRemoteURL() {
        return remoteURL;
    }

    void remote(String id, String url) {
        this.remoteId = id;
        this.remoteURL = url;
    }

    /** Whether the client's connect loop is up. */
    public boolean isConnected() {
        return client.isConnected();
    }

    /** The client that carries the link. */
    public BayeuxClient getClient() {
        return client;
    }

    @Override
    public String toString() {
        return "OortComet[" + url + ", " + remoteId + ", " + client.getState() + "]";
    }
}
