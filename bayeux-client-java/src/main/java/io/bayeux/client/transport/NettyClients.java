package io.bayeux.client.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;

import javax.net.ssl.SSLException;
import java.net.URI;
import java.time.Duration;

/** What both transports need to open connections. */
final class NettyClients {
    private NettyClients() {
    }

    static Bootstrap bootstrap(EventLoopGroup group, Duration connectTimeout) {
        return new Bootstrap().group(group).channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) connectTimeout.toMillis());
    }

    static boolean secure(URI uri) {
        String scheme = uri.getScheme();
        return "https".equalsIgnoreCase(scheme) || "wss".equalsIgnoreCase(scheme);
    }

    static int port(URI uri) {
        return uri.getPort() > 0 ? uri.getPort() : secure(uri) ? 443 : 80;
    }

    static SslContext sslContext(SslContext configured) {
        if (configured != null) {
            return configured;
        }
        try {
            return SslContextBuilder.forClient().build();
        } catch (SSLException x) {
            throw new IllegalStateException("Cannot set up TLS: " + x.getMessage(), x);
        }
    }

    /** The request target: path and query, {@code /} when empty. */
    static String target(URI uri) {
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        return uri.getRawQuery() == null ? path : path + "?" + uri.getRawQuery();
    }

    static String hostHeader(URI uri) {
        int port = port(uri);
        boolean defaultPort = port == (secure(uri) ? 443 : 80);
        return defaultPort ? uri.getHost() : uri.getHost() + ":" + port;
    }
}
