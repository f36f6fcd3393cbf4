package io.bayeux.transport.http;

import io.bayeux.api.server.BayeuxContext;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.ReadOnlyHttpHeaders;
import io.netty.handler.codec.http.cookie.Cookie;
import io.netty.handler.codec.http.cookie.ServerCookieDecoder;
import io.netty.handler.ssl.SslHandler;

import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The {@link BayeuxContext} of one HTTP request: a long-polling request, or the upgrade of a
 * WebSocket connection. Made on the event loop from the request's headers (kept by reference:
 * nothing changes them once the request is handed on); cookies, query parameters and the URL are
 * made on first use, racily but idempotently.
 */
public final class RequestContext implements BayeuxContext {
    private final HttpHeaders headers;
    private final String uri;
    private final String contextPath;
    private final String protocol;
    private final boolean secure;
    private final InetSocketAddress remoteAddress;
    private final InetSocketAddress localAddress;
    private final String transportName;
    /** Parsed on first use; any thread may do it, each gets the same result. */
    private volatile List<Cookie> cookies;
    private volatile Map<String, List<String>> parameters;
    private volatile String url;

    public RequestContext(Channel channel, HttpRequest request, String contextPath, String transportName) {
        this(channel, request, contextPath, transportName, channel.pipeline().get(SslHandler.class) != null);
    }

    /** A context whose connection is known to be TLS ({@code secure}) or not, without looking for the TLS handler. */
    public RequestContext(Channel channel, HttpRequest request, String contextPath, String transportName, boolean secure) {
        this(channel, request, request.headers(), contextPath, transportName, secure);
    }

    /**
     * The context of a WebSocket upgrade, which lives as long as its connection: the headers are
     * copied into a flat read-only array, a fraction of the memory of the request's own.
     */
    public static RequestContext ofUpgrade(Channel channel, HttpRequest request, String contextPath, String transportName) {
        HttpHeaders original = request.headers();
        CharSequence[] pairs = new CharSequence[original.size() * 2];
        int at = 0;
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = original.iteratorCharSequence(); it.hasNext(); ) {
            Map.Entry<CharSequence, CharSequence> header = it.next();
            pairs[at++] = header.getKey();
            pairs[at++] = header.getValue();
        }
        HttpHeaders compact = new ReadOnlyHttpHeaders(false, at == pairs.length ? pairs : Arrays.copyOf(pairs, at));
        return new RequestContext(channel, request, compact, contextPath, transportName,
                channel.pipeline().get(SslHandler.class) != null);
    }

    private RequestContext(Channel channel, HttpRequest request, HttpHeaders headers, String contextPath, String transportName, boolean secure) {
        this.headers = headers;
        this.uri = request.uri();
        this.secure = secure;
        this.contextPath = contextPath;
        this.protocol = request.protocolVersion().text();
        this.remoteAddress = channel.remoteAddress() instanceof InetSocketAddress a ? a : null;
        this.localAddress = channel.localAddress() instanceof InetSocketAddress a ? a : null;
        this.transportName = transportName;
    }

    @Override
    public InetSocketAddress getRemoteAddress() {
        return remoteAddress;
    }

    @Override
    public InetSocketAddress getLocalAddress() {
        return localAddress;
    }

    @Override
    public String getHeader(String name) {
        return headers.get(name);
    }

    @Override
    public List<String> getHeaderValues(String name) {
        return List.copyOf(headers.getAll(name));
    }

    @Override
    public String getCookie(String name) {
        List<Cookie> parsed = cookies;
        if (parsed == null) {
            parsed = parseCookies(headers);
            cookies = parsed;
        }
        for (Cookie cookie : parsed) {
            if (cookie.name().equals(name)) {
                return cookie.value();
            }
        }
        return null;
    }

    private static List<Cookie> parseCookies(HttpHeaders headers) {
        List<String> values = headers.getAll(HttpHeaderNames.COOKIE);
        if (values.isEmpty()) {
            return List.of();
        }
        // LAX: applications set their own cookies, whose values may not be RFC 6265 tokens.
        return List.copyOf(ServerCookieDecoder.LAX.decodeAll(String.join("; ", values)));
    }

    @Override
    public String getParameter(String name) {
        List<String> values = parameters().get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    @Override
    public List<String> getParameterValues(String name) {
        List<String> values = parameters().get(name);
        return values == null ? List.of() : List.copyOf(values);
    }

    private Map<String, List<String>> parameters() {
        Map<String, List<String>> parsed = parameters;
        if (parsed == null) {
            parsed = Map.copyOf(new QueryStringDecoder(uri).parameters());
            parameters = parsed;
        }
        return parsed;
    }

    @Override
    public String getURL() {
        String made = url;
        if (made == null) {
            made = (secure ? "https://" : "http://") + headers.get(HttpHeaderNames.HOST, "localhost") + uri;
            url = made;
        }
        return made;
    }

    @Override
    public String getContextPath() {
        return contextPath;
    }

    @Override
    public String getProtocol() {
        return protocol;
    }

    @Override
    public boolean isSecure() {
        return secure;
    }

    @Override
    public String getTransportName() {
        return transportName;
    }

    @Override
    public String toString() {
        return "RequestContext[" + transportName + " from " + remoteAddress + ", " + getURL() + "]";
    }
}
