package io.bayeux.spring;

import io.bayeux.server.QueueOverflow;
import io.bayeux.transport.SameSite;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code bayeux.*} properties the auto-configured server is built from. Each default is the
 * one {@code NettyBayeuxServer.Builder} and {@code BayeuxServerConfig} document (a test keeps them
 * alike); each value is checked by the builder it goes to, and a bad one fails the application's
 * start naming the property (see {@link BayeuxServerFactory}).
 *
 * <p>Bound once, at start, by Spring; not thread-safe, and not read after the server is built.
 */
@ConfigurationProperties("bayeux")
public class BayeuxProperties {
    /** Whether the starter builds and starts a Bayeux server at all. */
    private boolean enabled = true;
    /** The address the server binds; 0.0.0.0 for every interface. */
    private String host = "127.0.0.1";
    /** The port; 0 picks a free one, which the environment then holds as local.bayeux.port. */
    private int port = 8080;
    /** The endpoint path: requests to it and to any path under it are Bayeux. */
    private String path = "/cometd";
    /** The origins allowed by CORS and for WebSocket upgrades; * allows any. */
    private List<String> allowedOrigins = new ArrayList<>(List.of("*"));
    /** Static files served beside the endpoint: directories, or class path locations with a classpath: prefix, tried in order. */
    private List<String> staticRoots = new ArrayList<>();
    /** The transports served, in order of preference; unset: websocket (unless bayeux.websocket is false) and long-polling, and callback-polling when bayeux.jsonp is true. */
    private List<String> transports;
    /** Whether the WebSocket transport is served. */
    private boolean websocket = true;
    /** Whether the callback-polling (JSONP) transport is served, for old clients without CORS. */
    private boolean jsonp = false;
    /** Whether permessage-deflate is negotiated with WebSocket clients that offer it. */
    private boolean websocketCompression = true;
    /** Whether each WebSocket connection must start with its own handshake. */
    private boolean handshakePerConnection = false;
    /** The largest message (request body or WebSocket frame) accepted, in bytes; at least 1024. */
    private int maxMessageSize = 1024 * 1024;
    /** The bound of each session's queue, in messages. */
    private int maxQueue = 1000;
    /** What happens when a session's queue is full: disconnect (the client handshakes again and recovers), drop-oldest or drop-newest. */
    private QueueOverflow queueOverflow = QueueOverflow.DISCONNECT;
    /** How long a /meta/connect is held when there is nothing to deliver. */
    private Duration timeout = Duration.ofSeconds(20);
    /** How long a client waits between a connect reply and its next connect. */
    private Duration interval = Duration.ZERO;
    /** How long a session lives without a connect before it expires. */
    private Duration maxInterval = Duration.ofSeconds(10);
    /** The longest a lazy message waits. */
    private Duration maxLazyTimeout = Duration.ofSeconds(5);
    /** How long an HTTP request may take to arrive whole. */
    private Duration requestTimeout = Duration.ofSeconds(10);
    /** How long a connection may stay silent before it is closed. */
    private Duration idleTimeout = Duration.ofSeconds(60);
    /** How long a WebSocket reader may take nothing before it counts as one that does not read. */
    private Duration stallTime = Duration.ofSeconds(2);
    /** How many long-polling connects one browser may hold at once; -1 for no limit. */
    private int maxSessionsPerBrowser = 1;
    /** Whether a publisher subscribed to a channel receives its own messages. */
    private boolean broadcastToPublisher = true;
    /** The name of the cookie that binds each session to its browser. */
    private String browserCookieName = "BAYEUX_BROWSER";
    /** The SameSite attribute of the browser cookie; none needs TLS. */
    private SameSite browserCookieSameSite = SameSite.LAX;
    /** The gzip level of HTTP responses: 0 (off) to 9. */
    private int gzipLevel = 1;
    /** The least body length, in bytes, of a gzipped HTTP response. */
    private int gzipMinBytes = 1280;
    /** The number of I/O event loops; 0 for one per core. */
    private int ioThreads = 0;
    /** The number of threads that handle messages and run listeners; 0 for one per core, at least two. */
    private int executorThreads = 0;
    /** Whether messages are handled, and listeners run, on virtual threads (for listeners that block) instead of the bounded pool. */
    private boolean virtualThreads = false;
    /** Which cluster the server joins: none, oort or redis (the module of that name must be on the class path). */
    private ClusterKind cluster = ClusterKind.NONE;
    @NestedConfigurationProperty
    private final Tls tls = new Tls();
    @NestedConfigurationProperty
    private final Oort oort = new Oort();
    @NestedConfigurationProperty
    private final Redis redis = new Redis();
    @NestedConfigurationProperty
    private final Token token = new Token();

    /** The clusters a server may join. */
    public enum ClusterKind {
        /** A server alone. */
        NONE,
        /** An Oort cloud: nodes linked to each other over WebSocket (module oort-cluster). */
        OORT,
        /** A cluster on Redis (module cluster-redis). */
        REDIS
    }

    /** Where the TLS certificate comes from: PEM files, a key store, or a self-signed one for development; none of them, plain HTTP. */
    public static class Tls {
        /** A PEM certificate chain (with private-key). */
        private String certificateChain;
        /** A PEM PKCS#8 private key (with certificate-chain). */
        private String privateKey;
        /** A PKCS12 (or, named *.jks, JKS) key store holding one private key entry. */
        private String keyStore;
        /** The key store's password. */
        private String keyStorePassword = "";
        /** Whether to serve a self-signed certificate made at start: development and tests only. */
        private boolean selfSigned = false;

        public String getCertificateChain() { return certificateChain; }
        public void setCertificateChain(String certificateChain) { this.certificateChain = certificateChain; }
        public String getPrivateKey() { return privateKey; }
        public void setPrivateKey(String privateKey) { this.privateKey = privateKey; }
        public String getKeyStore() { return keyStore; }
        public void setKeyStore(String keyStore) { this.keyStore = keyStore; }
        public String getKeyStorePassword() { return keyStorePassword; }
        public void setKeyStorePassword(String keyStorePassword) { this.keyStorePassword = keyStorePassword; }
        public boolean isSelfSigned() { return selfSigned; }
        public void setSelfSigned(boolean selfSigned) { this.selfSigned = selfSigned; }
    }

    /** How the node joins an Oort cloud (bayeux.cluster=oort); see OortConfig. */
    public static class Oort {
        /** This node's public URL as the other nodes dial it; unset: the server's own endpoint. */
        private String url;
        /** The secret shared by every node of the cloud; required when there are peers. */
        private String secret;
        /** Nodes dialled at start (one is enough: the rest of the cloud follows). */
        private List<String> peers = new ArrayList<>();
        /** Channels (wildcards allowed) observed on every node. */
        private List<String> channels = new ArrayList<>();
        /** How long a silent link may stay before its node counts as gone; at least 200 ms. */
        private Duration failureTimeout = Duration.ofSeconds(10);
        /** The longest wait between two attempts to reach a node again. */
        private Duration maxBackoff = Duration.ofSeconds(5);
        /** Whether links use WebSocket (else long-polling). */
        private boolean clientWebsocket = true;

        public String getUrl() { return url; }
        public void setUrl(String url) { this.url = url; }
        public String getSecret() { return secret; }
        public void setSecret(String secret) { this.secret = secret; }
        public List<String> getPeers() { return peers; }
        public void setPeers(List<String> peers) { this.peers = peers; }
        public List<String> getChannels() { return channels; }
        public void setChannels(List<String> channels) { this.channels = channels; }
        public Duration getFailureTimeout() { return failureTimeout; }
        public void setFailureTimeout(Duration failureTimeout) { this.failureTimeout = failureTimeout; }
        public Duration getMaxBackoff() { return maxBackoff; }
        public void setMaxBackoff(Duration maxBackoff) { this.maxBackoff = maxBackoff; }
        public boolean isClientWebsocket() { return clientWebsocket; }
        public void setClientWebsocket(boolean clientWebsocket) { this.clientWebsocket = clientWebsocket; }
    }

    /** How the node joins a cluster on Redis (bayeux.cluster=redis); see RedisConfig. */
    public static class Redis {
        /** The Redis (or Valkey) server: redis://HOST:PORT or rediss://... */
        private String uri = "redis://127.0.0.1:6379";
        /** Channels (wildcards allowed) shared with the other nodes. */
        private List<String> channels = new ArrayList<>();
        /** Whether the node keeps presence (which node each user is on). */
        private boolean presence = true;
        /** How long a node's users outlive its last presence heartbeat. */
        private Duration presenceTtl = Duration.ofSeconds(10);
        /** The prefix of every Redis channel and key the cluster uses. */
        private String prefix = "bayeux:";
        /** How many messages for the other nodes wait, at most, while Redis is away. */
        private int bufferSize = 10_000;
        /** The longest wait between two attempts to reach Redis again. */
        private Duration maxReconnectDelay = Duration.ofSeconds(5);
        /** How long, once Redis is back, the messages that waited for it keep waiting, so that the other nodes subscribe again first. */
        private Duration settleDelay = Duration.ofSeconds(1);

        public String getUri() { return uri; }
        public void setUri(String uri) { this.uri = uri; }
        public List<String> getChannels() { return channels; }
        public void setChannels(List<String> channels) { this.channels = channels; }
        public boolean isPresence() { return presence; }
        public void setPresence(boolean presence) { this.presence = presence; }
        public Duration getPresenceTtl() { return presenceTtl; }
        public void setPresenceTtl(Duration presenceTtl) { this.presenceTtl = presenceTtl; }
        public String getPrefix() { return prefix; }
        public void setPrefix(String prefix) { this.prefix = prefix; }
        public int getBufferSize() { return bufferSize; }
        public void setBufferSize(int bufferSize) { this.bufferSize = bufferSize; }
        public Duration getMaxReconnectDelay() { return maxReconnectDelay; }
        public void setMaxReconnectDelay(Duration maxReconnectDelay) { this.maxReconnectDelay = maxReconnectDelay; }
        public Duration getSettleDelay() { return settleDelay; }
        public void setSettleDelay(Duration settleDelay) { this.settleDelay = settleDelay; }
    }

    /**
     * Token authentication (module bayeux-auth-jwt, on the class path): on when secret or jwks-url is
     * set; see JwtConfig, whose defaults these are.
     */
    public static class Token {
        /** The HS256 shared secret, at least 32 bytes (UTF-8); turns token authentication on. */
        private String secret;
        /** The URL of a JWK set (RS256, ES256, EdDSA keys), fetched, cached and fetched again for an unknown kid; turns token authentication on. */
        private String jwksUrl;
        /** The iss every token must have; unset: not checked. */
        private String issuer;
        /** The audience every token's aud must contain; unset: not checked. */
        private String audience;
        /** The clock skew allowed on exp and nbf. */
        private Duration clockSkew = Duration.ofSeconds(60);
        /** How long before its token expires a session is asked to refresh it. */
        private Duration refreshLead = Duration.ofSeconds(60);
        /** How long a session may stay on a token that is no longer accepted (exp plus the clock skew) before it is disconnected. */
        private Duration refreshGrace = Duration.ofSeconds(30);
        /** Channel patterns (* and ** wildcards) every authenticated session may subscribe to and publish on, whatever its claims. */
        private List<String> publicChannels = new ArrayList<>();

        public String getSecret() { return secret; }
        public void setSecret(String secret) { this.secret = secret; }
        public String getJwksUrl() { return jwksUrl; }
        public void setJwksUrl(String jwksUrl) { this.jwksUrl = jwksUrl; }
        public String getIssuer() { return issuer; }
        public void setIssuer(String issuer) { this.issuer = issuer; }
        public String getAudience() { return audience; }
        public void setAudience(String audience) { this.audience = audience; }
        public Duration getClockSkew() { return clockSkew; }
        public void setClockSkew(Duration clockSkew) { this.clockSkew = clockSkew; }
        public Duration getRefreshLead() { return refreshLead; }
        public void setRefreshLead(Duration refreshLead) { this.refreshLead = refreshLead; }
        public Duration getRefreshGrace() { return refreshGrace; }
        public void setRefreshGrace(Duration refreshGrace) { this.refreshGrace = refreshGrace; }
        public List<String> getPublicChannels() { return publicChannels; }
        public void setPublicChannels(List<String> publicChannels) { this.publicChannels = publicChannels; }
    }

    public boolean isEnabled() { return enabled; }
    public void setEnabled(boolean enabled) { this.enabled = enabled; }
    public String getHost() { return host; }
    public void setHost(String host) { this.host = host; }
    public int getPort() { return port; }
    public void setPort(int port) { this.port = port; }
    public String getPath() { return path; }
    public void setPath(String path) { this.path = path; }
    public List<String> getAllowedOrigins() { return allowedOrigins; }
    public void setAllowedOrigins(List<String> allowedOrigins) { this.allowedOrigins = allowedOrigins; }
    public List<String> getStaticRoots() { return staticRoots; }
    public void setStaticRoots(List<String> staticRoots) { this.staticRoots = staticRoots; }
    public List<String> getTransports() { return transports; }
    public void setTransports(List<String> transports) { this.transports = transports; }
    public boolean isWebsocket() { return websocket; }
    public void setWebsocket(boolean websocket) { this.websocket = websocket; }
    public boolean isJsonp() { return jsonp; }
    public void setJsonp(boolean jsonp) { this.jsonp = jsonp; }
    public boolean isWebsocketCompression() { return websocketCompression; }
    public void setWebsocketCompression(boolean websocketCompression) { this.websocketCompression = websocketCompression; }
    public boolean isHandshakePerConnection() { return handshakePerConnection; }
    public void setHandshakePerConnection(boolean handshakePerConnection) { this.handshakePerConnection = handshakePerConnection; }
    public int getMaxMessageSize() { return maxMessageSize; }
    public void setMaxMessageSize(int maxMessageSize) { this.maxMessageSize = maxMessageSize; }
    public int getMaxQueue() { return maxQueue; }
    public void setMaxQueue(int maxQueue) { this.maxQueue = maxQueue; }
    public QueueOverflow getQueueOverflow() { return queueOverflow; }
    public void setQueueOverflow(QueueOverflow queueOverflow) { this.queueOverflow = queueOverflow; }
    public Duration getTimeout() { return timeout; }
    public void setTimeout(Duration timeout) { this.timeout = timeout; }
    public Duration getInterval() { return interval; }
    public void setInterval(Duration interval) { this.interval = interval; }
    public Duration getMaxInterval() { return maxInterval; }
    public void setMaxInterval(Duration maxInterval) { this.maxInterval = maxInterval; }
    public Duration getMaxLazyTimeout() { return maxLazyTimeout; }
    public void setMaxLazyTimeout(Duration maxLazyTimeout) { this.maxLazyTimeout = maxLazyTimeout; }
    public Duration getRequestTimeout() { return requestTimeout; }
    public void setRequestTimeout(Duration requestTimeout) { this.requestTimeout = requestTimeout; }
    public Duration getIdleTimeout() { return idleTimeout; }
    public void setIdleTimeout(Duration idleTimeout) { this.idleTimeout = idleTimeout; }
    public Duration getStallTime() { return stallTime; }
    public void setStallTime(Duration stallTime) { this.stallTime = stallTime; }
    public int getMaxSessionsPerBrowser() { return maxSessionsPerBrowser; }
    public void setMaxSessionsPerBrowser(int maxSessionsPerBrowser) { this.maxSessionsPerBrowser = maxSessionsPerBrowser; }
    public boolean isBroadcastToPublisher() { return broadcastToPublisher; }
    public void setBroadcastToPublisher(boolean broadcastToPublisher) { this.broadcastToPublisher = broadcastToPublisher; }
    public String getBrowserCookieName() { return browserCookieName; }
    public void setBrowserCookieName(String browserCookieName) { this.browserCookieName = browserCookieName; }
    public SameSite getBrowserCookieSameSite() { return browserCookieSameSite; }
    public void setBrowserCookieSameSite(SameSite browserCookieSameSite) { this.browserCookieSameSite = browserCookieSameSite; }
    public int getGzipLevel() { return gzipLevel; }
    public void setGzipLevel(int gzipLevel) { this.gzipLevel = gzipLevel; }
    public int getGzipMinBytes() { return gzipMinBytes; }
    public void setGzipMinBytes(int gzipMinBytes) { this.gzipMinBytes = gzipMinBytes; }
    public int getIoThreads() { return ioThreads; }
    public void setIoThreads(int ioThreads) { this.ioThreads = ioThreads; }
    public int getExecutorThreads() { return executorThreads; }
    public void setExecutorThreads(int executorThreads) { this.executorThreads = executorThreads; }
    public boolean isVirtualThreads() { return virtualThreads; }
    public void setVirtualThreads(boolean virtualThreads) { this.virtualThreads = virtualThreads; }
    public ClusterKind getCluster() { return cluster; }
    public void setCluster(ClusterKind cluster) { this.cluster = cluster; }
    public Tls getTls() { return tls; }
    public Oort getOort() { return oort; }
    public Redis getRedis() { return redis; }
    public Token getToken() { return token; }
}
