package io.bayeux.client.transport;

import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.cookie.ClientCookieDecoder;
import io.netty.handler.codec.http.cookie.ClientCookieEncoder;
import io.netty.handler.codec.http.cookie.Cookie;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The cookies of one client, by name, for the one server it talks to (domain and path are not
 * considered: a client has a single endpoint). Thread-safe.
 */
public final class CookieJar {
    private final Map<String, Cookie> cookies = new ConcurrentHashMap<>();

    /** Stores the cookies of every {@code Set-Cookie} header; a max-age of 0 removes one. */
    public void store(HttpHeaders headers) {
        for (String header : headers.getAll("Set-Cookie")) {
            Cookie cookie = ClientCookieDecoder.STRICT.decode(header);
            if (cookie == null) {
                continue;
            }
            if (cookie.maxAge() == 0) {
                cookies.remove(cookie.name());
            } else {
                cookies.put(cookie.name(), cookie);
            }
        }
    }

    /** The {@code Cookie} header value, or null when there is none. */
    public String header() {
        return cookies.isEmpty() ? null : ClientCookieEncoder.STRICT.encode(List.copyOf(cookies.values()));
    }

    public String get(String name) {
        Cookie cookie = cookies.get(name);
        return cookie == null ? null : cookie.value();
    }

    public void put(String name, String value) {
        cookies.put(name, new io.netty.handler.codec.http.cookie.DefaultCookie(name, value));
    }
}
