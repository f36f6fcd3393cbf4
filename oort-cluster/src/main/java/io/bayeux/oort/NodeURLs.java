package io.bayeux.oort;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Set;

/** Checks the URL of a node (its own, or a peer's): absolute, http(s) or ws(s), with a host. */
final class NodeURLs {
    private static final Set<String> SCHEMES = Set.of("http", "https", "ws", "wss");

    private NodeURLs() {
    }

    /**
     * @param setting the name of the setting, for the message
     * @return {@code url}
     * @throws IllegalArgumentException naming {@code setting} and the bad value
     */
    static String check(String setting, String url) {
        if (url == null) {
            throw new IllegalArgumentException(setting + " must not be null");
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException x) {
            throw new IllegalArgumentException(setting + " is not a URL: '" + url + "' (" + x.getReason() + ")", x);
        }
        if (uri.getScheme() == null || !SCHEMES.contains(uri.getScheme()) || uri.getHost() == null) {
            throw new IllegalArgumentException(setting + " is not an http(s) or ws(s) URL with a host: '" + url + "'");
        }
        return url;
    }
}
