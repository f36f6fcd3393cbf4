package io.bayeux.transport.internal.http;

import io.bayeux.transport.SameSite;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.cookie.CookieHeaderNames;
import io.netty.handler.codec.http.cookie.DefaultCookie;
import io.netty.handler.codec.http.cookie.ServerCookieDecoder;
import io.netty.handler.codec.http.cookie.ServerCookieEncoder;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Iterator;
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

    /**
     * The browser id the request's cookie names, or null when it sent none (or one this server did not make).
     * Read on every long-polling request, so without parsing every cookie into objects: the first
     * cookie of this name in each {@code Cookie} header, as {@link ServerCookieDecoder#LAX} reads it
     * (a header's later cookies of the same name are ignored, as that decoder's set ignores them).
     */
    public String read(HttpHeaders headers) {
        if (!headers.contains(HttpHeaderNames.COOKIE)) {
            return null;
        }
        for (Iterator<String> it = headers.valueStringIterator(HttpHeaderNames.COOKIE); it.hasNext(); ) {
            String id = idIn(it.next());
            if (id != null) {
                return id;
            }
        }
        return null;
    }

    /** This cookie's browser id in one {@code Cookie} header, or null: its first well-formed cookie of this name, if valid. */
    private String idIn(String header) {
        int length = header.length();
        if (header.indexOf(name) < 0) {
            return null;
        }
        int i = 0;
        boolean rfc2965 = false;
        if (header.regionMatches(true, 0, "$Version", 0, 8)) {
            // RFC 2965 style: the cookies follow the version.
            i = header.indexOf(';') + 1;
            rfc2965 = true;
        }
        while (true) {
            while (i < length && isSeparator(header.charAt(i))) {
                i++;
            }
            if (i == length) {
                return null;
            }
            int nameBegin = i;
            int nameEnd;
            int valueBegin;
            int valueEnd;
            while (true) {
                char c = header.charAt(i);
                if (c == ';') {
                    nameEnd = i;
                    valueBegin = -1;
                    valueEnd = -1;
                    break;
                } else if (c == '=') {
                    nameEnd = i;
                    i++;
                    if (i == length) {
                        valueBegin = 0;
                        valueEnd = 0;
                        break;
                    }
                    valueBegin = i;
                    int semicolon = header.indexOf(';', i);
                    valueEnd = semicolon > 0 ? semicolon : length;
                    i = valueEnd;
                    break;
                }
                i++;
                if (i == length) {
                    nameEnd = length;
                    valueBegin = -1;
                    valueEnd = -1;
                    break;
                }
            }
            if (rfc2965 && (header.startsWith("$Path", nameBegin) || header.startsWith("$Domain", nameBegin)
                    || header.startsWith("$Port", nameBegin))) {
                continue;
            }
            // Netty's cookie trims its name (String.trim: every char up to the space).
            while (nameBegin < nameEnd && header.charAt(nameBegin) <= ' ') {
                nameBegin++;
            }
            while (nameEnd > nameBegin && header.charAt(nameEnd - 1) <= ' ') {
                nameEnd--;
            }
            if (valueBegin < 0 || nameEnd - nameBegin != name.length() || !header.startsWith(name, nameBegin)) {
                continue;
            }
            // A value in double quotes is unwrapped; one with an unbalanced quote makes no cookie.
            if (valueEnd > valueBegin && header.charAt(valueBegin) == '"') {
                if (valueEnd - valueBegin < 2 || header.charAt(valueEnd - 1) != '"') {
                    continue;
                }
                valueBegin++;
                valueEnd--;
            }
            return isId(header, valueBegin, valueEnd) ? header.substring(valueBegin, valueEnd) : null;
        }
    }

    private static boolean isSeparator(char c) {
        return c == '\t' || c == '\n' || c == 0x0b || c == '\f' || c == '\r' || c == ' ' || c == ',' || c == ';';
    }

    /** Whether {@code s[from, to)} is an id this server makes: 16 to 64 lower-case hex digits. */
    private static boolean isId(String s, int from, int to) {
        int length = to - from;
        if (length < 16 || length > 64) {
            return false;
        }
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        return true;
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
