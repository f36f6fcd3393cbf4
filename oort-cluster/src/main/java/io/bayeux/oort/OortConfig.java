package io.bayeux.oort;

import io.bayeux.api.ChannelId;
import io.bayeux.api.server.BayeuxServer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How a node joins a cloud: its URL, the shared secret, the static peers it dials at start
 * (one is enough: the rest of the cloud follows), the channels it observes, and the link
 * timings. An immutable value made by {@link #builder()}; {@link #start(BayeuxServer)} makes
 * and starts the {@link Oort}. Defaults: no URL (the server's own, see {@link OortNode}), no
 * secret (a node alone: one with peers must have one), no peers, no channels, failure timeout
 * 10 s, max back-off 5 s, WebSocket links.
 *
 * <p>The builder rejects a bad value on its own at once (an empty secret, a failure timeout
 * under 200 ms); the settings as a whole are checked at start ({@link #validate()}): every
 * failure is an {@link IllegalArgumentException} whose message names the setting and the bad value.
 */
public final class OortConfig {
    private final String url;
    private final String secret;
    private final List<String> peers;
    private final List<String> channels;
    private final Duration failureTimeout;
    private final Duration maxBackoff;
    private final boolean clientWebSocket;

    private OortConfig(Builder builder) {
        this.url = builder.url;
        this.secret = builder.secret;
        this.peers = List.copyOf(builder.peers);
        this.channels = List.copyOf(builder.channels);
        this.failureTimeout = builder.failureTimeout;
        this.maxBackoff = builder.maxBackoff;
        this.clientWebSocket = builder.clientWebSocket;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** This node's public URL, or null for the server's own. */
    public String url() {
        return url;
    }

    /** The shared secret, or null: the Oort then uses a random one, so that no other node can link to it. */
    public String secret() {
        return secret;
    }

    public List<String> peers() {
        return peers;
    }

    public List<String> channels() {
        return channels;
    }

    public Duration failureTimeout() {
        return failureTimeout;
    }

    public Duration maxBackoff() {
        return maxBackoff;
    }

    public boolean clientWebSocket() {
        return clientWebSocket;
    }

    /**
     * Checks the settings as a whole, as every start does: the URL and each peer are http(s) or
     * ws(s) URLs with a host; each channel is one an Oort can observe (not a meta or service
     * channel); a node with peers has a secret (without one, the Oort would pick a random secret
     * and no node could ever link).
     *
     * @return this config
     * @throws IllegalArgumentException naming the first bad setting and its value
     */
    public OortConfig validate() {
        if (url != null) {
            NodeURLs.check("url", url);
        }
        for (String peer : peers) {
            NodeURLs.check("peer", peer);
        }
        for (String channel : channels) {
            checkChannel(channel);
        }
        if (secret == null && !peers.isEmpty()) {
            throw new IllegalArgumentException("secret is not set, but peers are " + peers
                    + ": without the cloud's shared secret no node can link to this one, nor this one to any; set the same secret on every node");
        }
        return this;
    }

    private static void checkChannel(String channel) {
        ChannelId channelId;
        try {
            channelId = ChannelId.of(channel);
        } catch (IllegalArgumentException x) {
            throw new IllegalArgumentException("channel is not a channel name: '" + channel + "'", x);
        }
        if (channelId.isMeta() || channelId.isService()) {
            throw new IllegalArgumentException("channel '" + channel + "' is a meta or service channel, which no node observes");
        }
    }

    /**
     * Checks this config ({@link #validate()}), then makes, configures and starts the Oort of
     * {@code bayeux} at this config's URL, then dials the peers.
     *
     * @throws IllegalArgumentException when a setting is bad, or the URL is not set
     */
    public Oort start(BayeuxServer bayeux) {
        if (url == null) {
            throw new IllegalArgumentException("url is not set: start(bayeux) needs this node's public URL (OortNode.start uses its server's own)");
        }
        return start(bayeux, url);
    }

    /**
     * Checks this config ({@link #validate()}), then makes, configures and starts the Oort of
     * {@code bayeux} at {@code nodeURL}, then dials the peers.
     *
     * @throws IllegalArgumentException when a setting is bad
     */
    public Oort start(BayeuxServer bayeux, String nodeURL) {
        Oort oort = newOort(bayeux, nodeURL);
        oort.start();
        observePeers(oort);
        return oort;
    }

    /**
     * Checks this config ({@link #validate()}), then makes and configures (secret, timings,
     * observed channels), but does not start, the Oort of {@code bayeux} at {@code nodeURL}.
     *
     * @throws IllegalArgumentException when a setting is bad
     */
    public Oort newOort(BayeuxServer bayeux, String nodeURL) {
        validate();
        Oort oort = new Oort(bayeux, nodeURL);
        if (secret != null) {
            oort.setSecret(secret);
        }
        oort.setFailureTimeout(failureTimeout);
        oort.setMaxBackoff(maxBackoff);
        oort.setClientWebSocket(clientWebSocket);
        channels.forEach(oort::observeChannel);
        return oort;
    }

    /** Dials the peers from a started Oort. */
    public void observePeers(Oort oort) {
        for (String peer : peers) {
            oort.observeComet(peer);
        }
    }

    @Override
    public String toString() {
        return "OortConfig[" + url + ", peers=" + peers + ", channels=" + channels + ", failureTimeout=" + failureTimeout + "]";
    }

    public static final class Builder {
        private String url;
        private String secret;
        private final List<String> peers = new ArrayList<>();
        private final List<String> channels = new ArrayList<>();
        private Duration failureTimeout = Oort.DEFAULT_FAILURE_TIMEOUT;
        private Duration maxBackoff = Oort.DEFAULT_MAX_BACKOFF;
        private boolean clientWebSocket = true;

        private Builder() {
        }

        /** This node's public URL, as the other nodes dial it; checked at start. */
        public Builder url(String url) {
            this.url = Objects.requireNonNull(url, "url");
            return this;
        }

        /** The secret shared by every node of the cloud; required when there are peers. */
        public Builder secret(String secret) {
            if (secret == null || secret.isEmpty()) {
                throw new IllegalArgumentException("The Oort secret must not be empty");
            }
            this.secret = secret;
            return this;
        }

        /** A node to dial at start (its URL, checked at start); may be repeated. */
        public Builder peer(String peer) {
            peers.add(Objects.requireNonNull(peer, "peer"));
            return this;
        }

        public Builder peers(List<String> peers) {
            peers.forEach(this::peer);
            return this;
        }

        /** A channel (or wildcard) observed on every node; may be repeated. */
        public Builder channel(String channel) {
            channels.add(Objects.requireNonNull(channel, "channel"));
            return this;
        }

        public Builder channels(List<String> channels) {
            channels.forEach(this::channel);
            return this;
        }

        /** See {@link Oort#setFailureTimeout}. */
        public Builder failureTimeout(Duration failureTimeout) {
            if (failureTimeout == null || failureTimeout.toMillis() < 200) {
                throw new IllegalArgumentException("failureTimeout must be at least 200 ms: " + failureTimeout);
            }
            this.failureTimeout = failureTimeout;
            return this;
        }

        /** See {@link Oort#setMaxBackoff}. */
        public Builder maxBackoff(Duration maxBackoff) {
            if (maxBackoff == null || maxBackoff.isNegative() || maxBackoff.isZero()) {
                throw new IllegalArgumentException("maxBackoff must be positive: " + maxBackoff);
            }
            this.maxBackoff = maxBackoff;
            return this;
        }

        public Builder clientWebSocket(boolean clientWebSocket) {
            this.clientWebSocket = clientWebSocket;
            return this;
        }

        public OortConfig build() {
            return new OortConfig(this);
        }
    }
}
