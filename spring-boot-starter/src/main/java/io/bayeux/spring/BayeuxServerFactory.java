package io.bayeux.spring;

import io.bayeux.server.BayeuxServerConfig;
import io.bayeux.transport.NettyBayeuxServer;
import io.bayeux.transport.TlsConfig;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * Turns {@link BayeuxProperties} into a {@link NettyBayeuxServer.Builder}. Each value goes to the
 * builder's own setter, which checks it; a value it refuses fails with an
 * {@link InvalidConfigurationPropertyValueException} naming the property, its value and the
 * builder's reason, which Spring Boot reports as the cause of the failed start. Stateless.
 */
public final class BayeuxServerFactory {
    private BayeuxServerFactory() {
    }

    /**
     * A builder holding every {@code bayeux.*} server setting (the cluster settings go to the
     * cluster's own config); not built, so that customizers may still change it.
     *
     * @throws InvalidConfigurationPropertyValueException naming the first property whose value is refused
     */
    public static NettyBayeuxServer.Builder builder(BayeuxProperties p) {
        NettyBayeuxServer.Builder b = NettyBayeuxServer.builder();
        set("bayeux.host", p.getHost(), () -> b.host(p.getHost()));
        set("bayeux.port", p.getPort(), () -> b.port(p.getPort()));
        set("bayeux.path", p.getPath(), () -> b.path(p.getPath()));
        set("bayeux.allowed-origins", p.getAllowedOrigins(), () -> b.allowedOrigins(new LinkedHashSet<>(p.getAllowedOrigins())));
        for (String root : p.getStaticRoots()) {
            set("bayeux.static-roots", root, () -> b.staticRoot(root));
        }
        b.websocket(p.isWebsocket()).jsonp(p.isJsonp()).websocketCompression(p.isWebsocketCompression())
                .handshakePerConnection(p.isHandshakePerConnection());
        set("bayeux.max-message-size", p.getMaxMessageSize(), () -> b.maxMessageSize(p.getMaxMessageSize()));
        set("bayeux.max-queue", p.getMaxQueue(), () -> b.maxQueue(p.getMaxQueue(), p.getQueueOverflow()));
        set("bayeux.request-timeout", p.getRequestTimeout(), () -> b.requestTimeout(p.getRequestTimeout()));
        set("bayeux.idle-timeout", p.getIdleTimeout(), () -> b.idleTimeout(p.getIdleTimeout()));
        set("bayeux.stall-time", p.getStallTime(), () -> b.stallTime(p.getStallTime()));
        set("bayeux.browser-cookie-name", p.getBrowserCookieName(), () -> b.browserCookieName(p.getBrowserCookieName()));
        set("bayeux.browser-cookie-same-site", p.getBrowserCookieSameSite(), () -> b.browserCookieSameSite(p.getBrowserCookieSameSite()));
        set("bayeux.gzip-level", p.getGzipLevel(), () -> b.gzipLevel(p.getGzipLevel()));
        set("bayeux.gzip-min-bytes", p.getGzipMinBytes(), () -> b.gzipMinBytes(p.getGzipMinBytes()));
        set("bayeux.io-threads", p.getIoThreads(), () -> b.ioThreads(p.getIoThreads()));
        set("bayeux.executor-threads", p.getExecutorThreads(), () -> b.executorThreads(p.getExecutorThreads()));
        if (p.isVirtualThreads()) {
            b.virtualThreads();
        }
        TlsConfig tls = tls(p.getTls());
        if (tls != null) {
            b.tls(tls);
        }
        b.bayeuxConfig(protocol(p));
        return b;
    }

    /** The protocol settings; maxQueue, its overflow and (unless set) the transports are left to the server builder's. */
    static BayeuxServerConfig protocol(BayeuxProperties p) {
        BayeuxServerConfig.Builder c = BayeuxServerConfig.builder();
        set("bayeux.timeout", p.getTimeout(), () -> c.timeout(p.getTimeout()));
        set("bayeux.interval", p.getInterval(), () -> c.interval(p.getInterval()));
        set("bayeux.max-interval", p.getMaxInterval(), () -> c.maxInterval(p.getMaxInterval()));
        set("bayeux.max-lazy-timeout", p.getMaxLazyTimeout(), () -> c.maxLazyTimeout(p.getMaxLazyTimeout()));
        set("bayeux.max-sessions-per-browser", p.getMaxSessionsPerBrowser(), () -> c.maxSessionsPerBrowser(p.getMaxSessionsPerBrowser()));
        c.broadcastToPublisher(p.isBroadcastToPublisher());
        List<String> transports = p.getTransports();
        if (transports != null) {
            set("bayeux.transports", transports, () -> c.allowedTransports(List.copyOf(transports)));
        }
        return c.build();
    }

    /** The TLS source the properties name, or null for plain HTTP; more than one is refused. */
    static TlsConfig tls(BayeuxProperties.Tls t) {
        boolean pem = t.getCertificateChain() != null || t.getPrivateKey() != null;
        boolean store = t.getKeyStore() != null;
        int sources = (pem ? 1 : 0) + (store ? 1 : 0) + (t.isSelfSigned() ? 1 : 0);
        if (sources > 1) {
            throw new InvalidConfigurationPropertyValueException("bayeux.tls", "certificate-chain/private-key, key-store, self-signed",
                    "name one source of the TLS certificate: PEM files, a key store, or self-signed");
        }
        if (pem) {
            if (t.getCertificateChain() == null || t.getPrivateKey() == null) {
                throw new InvalidConfigurationPropertyValueException(t.getCertificateChain() == null ? "bayeux.tls.certificate-chain" : "bayeux.tls.private-key",
                        null, "PEM TLS needs both bayeux.tls.certificate-chain and bayeux.tls.private-key");
            }
            return TlsConfig.pem(Path.of(t.getCertificateChain()), Path.of(t.getPrivateKey()));
        }
        if (store) {
            return TlsConfig.keyStore(Path.of(t.getKeyStore()), t.getKeyStorePassword().toCharArray());
        }
        return t.isSelfSigned() ? TlsConfig.selfSigned() : null;
    }

    /** Runs a setter; the reason it refuses a value becomes a failure naming the property. */
    static void set(String property, Object value, Runnable setter) {
        try {
            setter.run();
        } catch (IllegalArgumentException | NullPointerException x) {
            throw new InvalidConfigurationPropertyValueException(property, value, x.getMessage());
        }
    }
}
