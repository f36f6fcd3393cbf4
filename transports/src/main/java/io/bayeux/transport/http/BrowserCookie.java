package io.bayeux.transport.http;

import io.bayeux.transport.SameSite;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.cookie.Cookie;
import io.netty.handler.codec.http.cookie.CookieHeaderNames;
import io.netty.handler.codec.http.cookie.DefaultCookie;
import io.netty.handler.codec.http.cookie.ServerCookieDecoder;
import io.netty.handler.codec.http.cookie.ServerCookieEncoder;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The cookie that tells browsers apart ({@code BAYEUX_BROWSER} by default): read from requests,
 * made for clients that sent none, and written as {@code Set-Cookie} with {@code Path=/},
 * {@code HttpOnly}, the configured {@code SameSite}, and {@code Secure} on TLS connections.
 * Thread-safe.
 */
public final class BrowserCookie {
    /** The default name, CometD's. */
    public static final String DEFAULT_NAME = "BAYEUX_BROWSER";
    /** A cookie name: an RFC 6265 token. */
    private static final Pattern NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");
    private static final Pattern VALUE = Pattern.compile("[0-9a-f]{16,64}");

    private final String name;
    private final SameSite sameSite;
    /** Guarded by itself. */
    private final SecureRandom random = new SecureRandom();

    public BrowserCookie(String name, SameSite sameSite) {
        this.name = requireValidName(name);
        this.sameSite = Objects.requireNonNull(sameSite, "sameSite");
    }

    /** Checks that {@code name} can name a cookie, and returns it. */
    public static String requireValidName(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("Not a cookie name (an RFC 6265 token): " + name);
        }
        return name;
    }

    public String name() {
        return name;
    }

    /** The browser id the request's cookie names, or null when it sent none (or one this server did not make). */
    public String read(HttpHeaders headers) {
        for (String header : headers.getAll(HttpHeaderNames.COOKIE)) {
            for (Cookie cookie : ServerCookieDecoder.LAX.decode(header)) {
                if (name.equals(cookie.name()) && VALUE.matcher(cookie.value()).matches()) {
                    return cookie.value();
                }
            }
        }
        return null;
    }

    /** A new random browser id: 128 bits in hex. */
    public String newId() {
        byte[] bytes = new byte[16];
        synchronized (random) {
            random.nextBytes(bytes);
        }
        return HexFormat.of().formatHex(bytes);
    }

    /** The {@code Set-Cookie} value that gives a client this browser id, for the whole site. */
    public String setCookie(String browserId, boolean secure) {
        DefaultCookie cookie = new DefaultCookie(name, browserId);
        cookie.setPath("/");
        cookie.setHttpOnly(true);
        cookie.setSecure(secure);
        cookie.setSameSite(CookieHeaderNames.SameSite.valueOf(sameSite.attribute()));
        return ServerCookieEncoder.STRICT.encode(cookie);
    }

    @Override
    public String toString() {
        return "BrowserCookie[" + name + ", SameSite=" + sameSite.attribute() + "]";
    }
}
