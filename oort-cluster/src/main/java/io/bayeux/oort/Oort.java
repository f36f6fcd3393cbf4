package io.bayeux.oort;

import io.bayeux.api.ChannelId;
import io.bayeux.api.Message;
import io.bayeux.api.client.ClientSessionChannel;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.LocalSession;
import io.bayeux.api.server.ServerSession;
import io.bayeux.client.BayeuxClient;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A node of a cloud of Bayeux servers, speaking CometD's Oort protocol: each node links to
 * every other with a {@link BayeuxClient} (an {@link OortComet}), the other node links back,
 * and messages published on an observed channel on one node reach the subscribers of every
 * node exactly once.
 *
 * <pre>{@code
 * Oort oort = new Oort(server.bayeux(), "http://10.0.0.1:8080/cometd");
 * oort.setSecret("shared secret");
 * oort.start();
 * oort.observeChannel("/chat/**");
 * oort.observeComet("http://10.0.0.2:8080/cometd"); // one seed: the rest of the cloud follows
 * }</pre>
 *
 * <p>What this adds to CometD's Oort: the secret is checked (a handshake with the Oort
 * extension and a wrong secret is refused; an unset secret is a random one, so an
 * unconfigured node links to nobody, and {@link OortConfig} refuses peers without a secret); {@code /oort/**}, {@code /service/oort/**} and
 * {@code /seti/**} are closed to ordinary clients; and links carry a heartbeat (the long-poll
 * timeout of Oort sessions is half the {@linkplain #setFailureTimeout failure timeout}), so
 * that a dead node or a half-open link is noticed on both sides within about the failure
 * timeout, and a broken link is retried with back-off until it heals.
 *
 * <p>Configure (secret, failure timeout, back-off) before {@link #start()}; {@link #close()}
 * is {@link #stop()}, so a node fits a try-with-resources ({@link OortNode} starts and closes
 * one with its server). The public methods are thread-safe. The links are managed on one
 * thread of the Oort's own ({@code OortActor}), where {@link CometListener}s run too; messages
 * from other nodes are republished on another ({@code Republisher}).
 */
public class Oort implements AutoCloseable {
    /** The handshake {@code ext} field of Oort handshakes and their replies. */
    public static final String EXT_OORT_FIELD = "org.cometd.oort";
    public static final String EXT_OORT_URL_FIELD = "oortURL";
    public static final String EXT_OORT_ID_FIELD = "oortId";
    public static final String EXT_OORT_SECRET_FIELD = "oortSecret";
    public static final String EXT_COMET_URL_FIELD = "cometURL";
    /** In a link back: the URL by which the other node dialed this one (its {@code cometURL}). */
    public static final String EXT_OORT_ALIAS_URL_FIELD = "oortAliasURL";
    /** Where nodes publish the URLs of the nodes they know. */
    public static final String OORT_CLOUD_CHANNEL = "/oort/cloud";
    /** Where a node announces itself ({@code oortId}, {@code oortURL}) once both directions of a link are up. */
    public static final String OORT_SERVICE_CHANNEL = "/service/oort";
    /** The default failure timeout: 10 s. */
    public static final Duration DEFAULT_FAILURE_TIMEOUT = Duration.ofSeconds(10);
    /** How many messages from other nodes may wait to be republished here: 100,000. */
    public static final int FORWARD_QUEUE = 100_000;
    /** The default bound of the queue of another node's session here: 100,000 messages. */
    public static final int DEFAULT_LINK_MAX_QUEUE = 100_000;
    /** The default longest wait between attempts to re-link: 5 s. */
    public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(5);

    private static final Logger LOG = LoggerFactory.getLogger(Oort.class);
    static final String REMOTE_URL_ATTRIBUTE = Oort.class.getName() + ".remoteURL";
    static final String REMOTE_ID_ATTRIBUTE = Oort.class.getName() + ".remoteId";
    /** The URL of this node as the other node dialed it (its {@code cometURL}). */
    static final String DIALED_URL_ATTRIBUTE = Oort.class.getName() + ".dialedURL";
    /** The URL by which this node dialed the other one, when its handshake is a link back ({@code oortAliasURL}). */
    static final String ALIAS_URL_ATTRIBUTE = Oort.class.getName() + ".aliasURL";

    private final BayeuxServer bayeux;
    private final String url;
    private final Set<String> observed = ConcurrentHashMap.newKeySet();
    private final List<CometListener> cometListeners = new CopyOnWriteArrayList<>();
    private final ClientSessionChannel.MessageListener subscribed = (channel, message) -> {
        // Messages are handled once each by the comet's /** listener; this only holds the subscription.
    };
    private final OortServerHooks hooks = new OortServerHooks(this);
    private final Republisher republisher = new Republisher(this);

    // Set before start; read by any thread after.
    private volatile String secret = UUID.randomUUID().toString();
    private volatile boolean secretSet;
    private volatile Duration failureTimeout = DEFAULT_FAILURE_TIMEOUT;
    private volatile Duration maxBackoff = DEFAULT_MAX_BACKOFF;
    private volatile boolean clientWebSocket = true;
    private volatile int linkMaxQueue = DEFAULT_LINK_MAX_QUEUE;

    // Lifecycle, guarded by this.
    private volatile boolean running;
    private volatile String id;
    private volatile String hashedSecret;
    /** One per start; null before the first. */
    private volatile OortActor actor;
    private EventLoopGroup clientGroup;
    private volatile LocalSession oortSession;

    /** The joined nodes' URLs, a snapshot replaced on the actor. */
    private volatile Set<String> known = Set.of();
    /** Confined to the actor thread. */
    private final OortLinks links;

    /**
     * @param bayeux the server this node serves
     * @param url    the public URL of this node's endpoint, as the other nodes dial it
     */
    public Oort(BayeuxServer bayeux, String url) {
        this.bayeux = Objects.requireNonNull(bayeux, "bayeux");
        this.url = NodeURLs.check("url", Objects.requireNonNull(url, "url"));
        links = new OortLinks(this);
    }

    // --- configuration

    public BayeuxServer getBayeuxServer() {
        return bayeux;
    }

    /** This node's URL. */
    public String getURL() {
        return url;
    }

    /** This node's id: a random UUID per start, null before the first. */
    public String getId() {
        return id;
    }

    /** The secret shared by the nodes of the cloud; set it before {@link #start()}. */
    public void setSecret(String secret) {
        if (secret == null || secret.isEmpty()) {
            throw new IllegalArgumentException("The Oort secret must not be empty");
        }
        this.secret = secret;
        this.secretSet = true;
    }

    public String getSecret() {
        return secret;
    }

    /**
     * How long a link may stay silent before it is deemed broken, on both sides; default 10 s.
     * The other node's session on this one is held for half of it (the heartbeat), expires
     * after it, and this node's client waits at most that long for a reply.
     */
    public void setFailureTimeout(Duration failureTimeout) {
        if (failureTimeout == null || failureTimeout.toMillis() < 200) {
            throw new IllegalArgumentException("failureTimeout must be at least 200 ms: " + failureTimeout);
        }
        this.failureTimeout = failureTimeout;
    }

    public Duration getFailureTimeout() {
        return failureTimeout;
    }

    /** The longest wait between attempts to re-link a broken link; default 5 s. */
    public void setMaxBackoff(Duration maxBackoff) {
        if (maxBackoff == null || maxBackoff.isNegative() || maxBackoff.isZero()) {
            throw new IllegalArgumentException("maxBackoff must be positive: " + maxBackoff);
        }
        this.maxBackoff = maxBackoff;
    }

    /**
     * The bound of the queue of another node's session on this one; default 100,000 messages
     * (a client's usual bound suits a browser, not a node that carries many).
     */
    public void setLinkMaxQueue(int linkMaxQueue) {
        if (linkMaxQueue < 1) {
            throw new IllegalArgumentException("linkMaxQueue must be positive: " + linkMaxQueue);
        }
        this.linkMaxQueue = linkMaxQueue;
    }

    /** How many messages from other nodes were dropped because this node could not republish them fast enough. */
    public long getDroppedCount() {
        return republisher.droppedCount();
    }

    /** Whether the links try WebSocket first (the default) or use long-polling only. */
    public void setClientWebSocket(boolean clientWebSocket) {
        this.clientWebSocket = clientWebSocket;
    }

    // --- lifecycle

    /** Starts the node with a new id: installs its server hooks and its link manager. */
    public synchronized void start() {
        if (running) {
            throw new IllegalStateException("Already started: " + this);
        }
        if (!secretSet) {
            LOG.warn("No Oort secret set for {}: a random one is used, so no other node can link to this one", url);
        }
        id = UUID.randomUUID().toString();
        hashedSecret = hash(secret);
        String name = "oort-" + Integer.toHexString(System.identityHashCode(this));
        actor = new OortActor(name);
        republisher.start(name + "-forward");
        clientGroup = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        hooks.install();
        LocalSession session = bayeux.newLocalSession("oort");
        session.handshake();
        session.getChannel(OORT_CLOUD_CHANNEL).subscribe((channel, message) -> {
            Object data = message.getData();
            post(() -> links.cloudReceived(data));
        });
        oortSession = session;
        running = true;
        long period = Math.max(50, Math.min(500, failureTimeout.toMillis() / 8));
        actor.every(period, links::checkAll);
        LOG.info("Oort {} started with id {}", url, id);
    }

    /**
     * Stops the node: every link is closed (the other nodes see this one leave), the server
     * hooks are removed. Safe to call twice.
     */
    public synchronized void stop() {
        if (!running) {
            return;
        }
        running = false;
        try {
            OortLinks.close(onActor(links::closeAll), Duration.ofSeconds(2));
        } catch (RuntimeException x) {
            LOG.warn("Failed to close the links of {}", this, x);
        }
        actor.shutdown();
        republisher.stop();
        hooks.uninstall();
        LocalSession session = oortSession;
        if (session != null) {
            session.disconnect();
        }
        oortSession = null;
        known = Set.of();
        clientGroup.shutdownGracefully(200, 2000, TimeUnit.MILLISECONDS);
        LOG.info("Oort {} stopped", url);
    }

    /** As {@link #stop()}: closing a stopped (or never started) Oort does nothing. */
    @Override
    public void close() {
        stop();
    }

    public boolean isRunning() {
        return running;
    }

    // --- comets

    /**
     * Links this node to the node at {@code cometURL} (unless it is linked already, or is this
     * node). The other node links back, and both then learn of the rest of the cloud.
     *
     * @return the link, or null when {@code cometURL} is this node
     */
    public OortComet observeComet(String cometURL) {
        Objects.requireNonNull(cometURL, "cometURL");
        java.net.URI.create(cometURL);
        return onActor(() -> links.observe(cometURL));
    }

    /**
     * Closes the link to the node at {@code cometURL}: it leaves this node's cloud (and this
     * node its) until either links again.
     *
     * @return the closed link, or null when there was none
     */
    public OortComet deobserveComet(String cometURL) {
        return onActor(() -> links.deobserve(cometURL));
    }

    /** The link to a node, by any URL it is known by, or null. */
    public OortComet getComet(String cometURL) {
        return onActor(() -> links.comet(cometURL));
    }

    /** The URLs of the nodes that joined this one (both directions up). */
    public Set<String> getKnownComets() {
        return known;
    }

    /** The id of the joined node at {@code cometURL}, or null. */
    public String getCometId(String cometURL) {
        return onActor(() -> links.joinedId(cometURL));
    }

    public void addCometListener(CometListener listener) {
        cometListeners.add(Objects.requireNonNull(listener, "listener"));
    }

    public void removeCometListener(CometListener listener) {
        cometListeners.remove(listener);
    }

    // --- channels

    /**
     * Observes a channel (or a wildcard pattern) on every node: messages published there on
     * other nodes are republished here, to this node's subscribers. A wildcard observation
     * never covers the cloud's own channels ({@code /oort/**}, {@code /seti/**}).
     */
    public void observeChannel(String channel) {
        ChannelId channelId = ChannelId.of(channel);
        if (channelId.isMeta() || channelId.isService()) {
            throw new IllegalArgumentException("Cannot observe a meta or service channel: " + channel);
        }
        if (observed.add(channel) && running) {
            post(() -> links.subscribeAll(channel));
        }
    }

    public void deobserveChannel(String channel) {
        if (observed.remove(channel) && running) {
            post(() -> links.unsubscribeAll(channel));
        }
    }

    /** The observed channels. */
    public Set<String> getObservedChannels() {
        return Set.copyOf(observed);
    }

    // --- sessions

    /** Whether {@code session} is another node's link to this one (a handshake with the right secret). */
    public boolean isOort(ServerSession session) {
        return session != null && session.getAttribute(REMOTE_URL_ATTRIBUTE) != null;
    }

    /** The URL of the node whose link {@code session} is, or null. */
    public String getRemoteURL(ServerSession session) {
        return session == null ? null : (String) session.getAttribute(REMOTE_URL_ATTRIBUTE);
    }

    /**
     * Whether {@code session} is this node's own republisher: the sender of every message that
     * arrived from another node. Channel listeners see those messages again here; a listener
     * that already ran on the node of origin and is not idempotent (an escaping filter) skips them.
     */
    public boolean isOortSession(ServerSession session) {
        LocalSession local = oortSession;
        return session != null && local != null && session == local.getServerSession();
    }

    /** The in-process session that republishes the messages of other nodes here. */
    public LocalSession getOortSession() {
        return oortSession;
    }

    /** base64(SHA-512(UTF-8 secret)), as CometD sends it. */
    public static String hash(String secret) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-512").digest(secret.getBytes(StandardCharsets.UTF_8));
            return Base64.getEncoder().encodeToString(digest);
        } catch (NoSuchAlgorithmException x) {
            throw new IllegalStateException("SHA-512 is missing", x);
        }
    }

    /** The {@code org.cometd.oort} object of a message's ext, or null. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> oortExt(Message message) {
        Map<String, Object> ext = message == null ? null : message.getExt();
        Object oort = ext == null ? null : ext.get(EXT_OORT_FIELD);
        return oort instanceof Map<?, ?> map ? (Map<String, Object>) map : null;
    }

    /** Whether the channel belongs to the cloud itself. */
    static boolean isInternal(String channel) {
        return channel.startsWith("/oort/") || channel.startsWith("/seti/") || channel.equals(OORT_SERVICE_CHANNEL)
                || channel.startsWith(OORT_SERVICE_CHANNEL + "/");
    }

    // --- the server side: called by OortServerHooks

    void incomingAdded(ServerSession session) {
        LocalSession local = oortSession;
        ServerSession oortServerSession = local == null ? null : local.getServerSession();
        // Never a second hop: what this node republishes from other nodes does not go back out.
        session.addListener((ServerSession.MessageListener) (to, sender, message) -> sender == null || sender != oortServerSession);
        post(() -> links.incomingHandshook(session));
    }

    void incomingRemoved(ServerSession session) {
        post(() -> links.incomingGone(session));
    }

    void announced(ServerSession from, Map<String, Object> data) {
        post(() -> links.remoteAnnounced(from, data));
    }

    // --- what the links read

    /** The hashed secret, or null before the first start. */
    String hashedSecret() {
        return hashedSecret;
    }

    int linkMaxQueue() {
        return linkMaxQueue;
    }

    Duration maxBackoff() {
        return maxBackoff;
    }

    boolean clientWebSocket() {
        return clientWebSocket;
    }

    EventLoopGroup clientGroup() {
        return clientGroup;
    }

    Set<String> observed() {
        return observed;
    }

    ClientSessionChannel.MessageListener subscribedListener() {
        return subscribed;
    }

    Republisher republisher() {
        return republisher;
    }

    List<CometListener> cometListeners() {
        return cometListeners;
    }

    void known(Set<String> joined) {
        known = joined;
    }

    // --- running on the actor

    /** Runs a task on the actor, later; dropped when stopped. */
    void post(Runnable task) {
        OortActor current = actor;
        if (current != null) {
            current.post(task);
        }
    }

    /** Runs a task on the actor and waits for its result, at most 10 s. */
    private <T> T onActor(Callable<T> task) {
        OortActor current = actor;
        if (current == null) {
            throw new IllegalStateException("Not started: " + this);
        }
        return current.call(task, this);
    }

    @Override
    public String toString() {
        return "Oort[" + url + ", " + id + ", known=" + known + "]";
    }
}
