package io.bayeux.transport.internal.http;

import io.bayeux.api.server.BayeuxContext;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.cookie.Cookie;
import io.netty.handler.codec.http.cookie.ServerCookieDecoder;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AsciiString;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The {@link BayeuxContext} of one HTTP request: a long-polling request, or the upgrade of a
 * WebSocket connection. Made on the event loop from the request's headers (kept by reference:
 * nothing changes them once the request is handed on; an upgrade's are packed into one string);
 * cookies, query parameters and the URL are made on first use, racily but idempotently.
 */
public final class RequestContext implements BayeuxContext {
    /** Separates names and values in packed headers: no header name or value holds a line feed. */
    private static final char SEPARATOR = '\n';
    /**
     * Names of headers that nearly every upgrade carries, packed as one character each:
     * {@code CODE + i} for {@code COMMON[i]}, a character no header name holds (names are ASCII
     * tokens) and that keeps the string one byte per character.
     */
    private static final String[] COMMON = {"host", "upgrade", "connection", "origin", "sec-websocket-version",
        "sec-websocket-extensions", "sec-websocket-protocol", "user-agent", "cookie", "accept-encoding", "accept-language",
        "cache-control", "pragma", "authorization", "referer", "x-forwarded-for", "x-forwarded-proto"};
    private static final char CODE = 0x80;
    /**
     * The request's {@link HttpHeaders}, or an upgrade's headers packed as
     * "name\nvalue\nname\nvalue\n", a {@link #COMMON} name as its one character, without the
     * handshake's {@code Sec-WebSocket-Key}.
     */
    private final Object headers;
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
     * packed into one string, a fraction of the memory of the request's own (an object per name
     * and value).
     */
    public static RequestContext ofUpgrade(Channel channel, HttpRequest request, String contextPath, String transportName) {
        StringBuilder packed = new StringBuilder(256);
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = request.headers().iteratorCharSequence(); it.hasNext(); ) {
            Map.Entry<CharSequence, CharSequence> header = it.next();
            CharSequence name = header.getKey();
            if (AsciiString.contentEqualsIgnoreCase(name, HttpHeaderNames.SEC_WEBSOCKET_KEY)) {
                continue; // the handshake's nonce, of no use once answered
            }
            CharSequence value = header.getValue();
            if (value.toString().indexOf(SEPARATOR) >= 0) {
                // Never from the HTTP decoder (it splits lines there); kept whole otherwise.
                value = value.toString().replace(SEPARATOR, ' ');
            }
            char code = codeOf(name);
            if (code != 0) {
                packed.append(code);
            } else {
                packed.append(name);
            }
            packed.append(SEPARATOR).append(value).append(SEPARATOR);
        }
        return new RequestContext(channel, request, packed.toString(), contextPath, transportName,
                channel.pipeline().get(SslHandler.class) != null);
    }

    private RequestContext(Channel channel, HttpRequest request, Object headers, String contextPath, String transportName, boolean secure) {
        this.headers = headers;
        // An upgrade's URI, kept as long as its connection, is most often the endpoint path itself.
        this.uri = request.uri().equals(contextPath) ? contextPath : request.uri();
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
        if (headers instanceof HttpHeaders http) {
            return http.get(name);
        }
        String packed = (String) headers;
        char code = codeOf(name);
        for (int at = 0; at < packed.length(); ) {
            int nameEnd = packed.indexOf(SEPARATOR, at);
            int valueEnd = packed.indexOf(SEPARATOR, nameEnd + 1);
            if (named(packed, at, nameEnd, name, code)) {
                return packed.substring(nameEnd + 1, valueEnd);
            }
            at = valueEnd + 1;
        }
        return null;
    }

    @Override
    public List<String> getHeaderValues(String name) {
        if (headers instanceof HttpHeaders http) {
            return List.copyOf(http.getAll(name));
        }
        String packed = (String) headers;
        char code = codeOf(name);
        List<String> values = new ArrayList<>(2);
        for (int at = 0; at < packed.length(); ) {
            int nameEnd = packed.indexOf(SEPARATOR, at);
            int valueEnd = packed.indexOf(SEPARATOR, nameEnd + 1);
            if (named(packed, at, nameEnd, name, code)) {
                values.add(packed.substring(nameEnd + 1, valueEnd));
            }
            at = valueEnd + 1;
        }
        return List.copyOf(values);
    }

    /** Whether the packed name {@code packed[at, nameEnd)} is {@code name}, whose {@link #COMMON} code is {@code code} (0 if none). */
    private static boolean named(String packed, int at, int nameEnd, String name, char code) {
        if (code != 0) {
            return nameEnd - at == 1 && packed.charAt(at) == code;
        }
        return nameEnd - at == name.length() && packed.regionMatches(true, at, name, 0, name.length());
    }

    /** The one character {@code name} is packed as, or 0 if it is not a {@link #COMMON} one. */
    private static char codeOf(CharSequence name) {
        for (int i = 0; i < COMMON.length; i++) {
            if (AsciiString.contentEqualsIgnoreCase(name, COMMON[i])) {
                return (char) (CODE + i);
            }
        }
        return 0;
    }

    @Override
    public String getCookie(String name) {
        List<Cookie> parsed = cookies;
        if (parsed == null) {
            parsed = parseCookies(getHeaderValues(HttpHeaderNames.COOKIE.toString()));
            cookies = parsed;
        }
        for (Cookie cookie : parsed) {
            if (cookie.name().equals(name)) {
                return cookie.value();
            }
        }
        return null;
    }

    private static List<Cookie> parseCookies(List<String> values) {
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
            String host = getHeader(HttpHeaderNames.HOST.toString());
            made = (secure ? "https://" : "http://") + (host == null ? "localhost" : host) + uri;
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
