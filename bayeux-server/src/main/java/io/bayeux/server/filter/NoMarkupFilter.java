package io.bayeux.server.filter;

/**
 * Escapes the HTML/XML markup characters {@code <}, {@code >}, {@code &}, {@code "} and
 * {@code '} in every string of the data, and in the keys of its maps, as {@code &lt;},
 * {@code &gt;}, {@code &amp;}, {@code &quot;} and {@code &#39;}: whatever a publisher sends,
 * it cannot inject markup into the pages of other clients. Escaping is not idempotent: text
 * that was already escaped is escaped again. Stateless and thread-safe.
 */
public class NoMarkupFilter extends JsonDataFilter {
    @Override
    protected Object filterString(String string) {
        return escape(string);
    }

    @Override
    protected String filterKey(String key) {
        return escape(key);
    }

    /** Escapes the markup characters of {@code text}; returns {@code text} itself when it has none. */
    public static String escape(String text) {
        StringBuilder builder = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            String replacement = switch (c) {
                case '<' -> "&lt;";
                case '>' -> "&gt;";
                case '&' -> "&amp;";
                case '"' -> "&quot;";
                case '\'' -> "&#39;";
                default -> null;
            };
            if (replacement != null) {
                if (builder == null) {
                    builder = new StringBuilder(text.length() + 16).append(text, 0, i);
                }
                builder.append(replacement);
            } else if (builder != null) {
                builder.append(c);
            }
        }
        return builder == null ? text : builder.toString();
    }

    @Override
    public String toString() {
        return "NoMarkupFilter";
    }
}
