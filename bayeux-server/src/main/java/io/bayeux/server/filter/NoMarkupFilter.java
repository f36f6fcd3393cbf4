package io.bayeux.server.filter;

/**
 * Escapes the characters that make HTML/XML markup — {@code <}, {@code >} and {@code &} — in
 * every string of the data, and in the keys of its maps, as {@code &lt;}, {@code &gt;} and
 * {@code &amp;}: whatever a publisher sends, it cannot open a tag or an entity in the text of
 * other clients' pages. Everything else arrives as it was published: numbers, booleans,
 * {@code null} and the shape of maps and lists keep their types, and quotes and apostrophes
 * are not touched (they make markup only inside an attribute, and a page that puts received
 * text into an attribute must escape it there). Like CometD's filter of the same name, with
 * {@code &} escaped too, so that {@code &lt;} typed by a user reads {@code &lt;} once shown.
 *
 * <p>Escaping is not idempotent: text that was already escaped is escaped again. Stateless
 * and thread-safe.
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
