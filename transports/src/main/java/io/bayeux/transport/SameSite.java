package io.bayeux.transport;

/**
 * The {@code SameSite} attribute of the browser cookie: whether browsers send it on requests
 * that other sites start. Browsers accept {@link #NONE} only on a {@code Secure} cookie, which
 * the server sets only when it serves TLS.
 */
public enum SameSite {
    /** Only on requests that this site starts. */
    STRICT("Strict"),
    /** Also on top-level navigations from other sites; the default, as in CometD and browsers. */
    LAX("Lax"),
    /** On every request, cross-site ones included (pages served from another origin). */
    NONE("None");

    private final String attribute;

    SameSite(String attribute) {
        this.attribute = attribute;
    }

    /** The attribute's value as written in {@code Set-Cookie}: {@code Strict}, {@code Lax} or {@code None}. */
    public String attribute() {
        return attribute;
    }
}
