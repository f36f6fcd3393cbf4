package io.bayeux.transport.internal.http;

import io.netty.handler.codec.http.HttpUtil;
import io.netty.util.AsciiString;

import java.util.Locale;

/**
 * Reads the {@code Content-Type} of a long-polling request: its media type, with Netty's
 * {@link HttpUtil#getMimeType}, and its charset parameter.
 *
 * <p>The charset is read here rather than by {@link HttpUtil#getCharset}: Netty's finds
 * {@code charset=} anywhere in the value and falls back to a default charset for a name it
 * does not know, so {@code charset=bogus} would pass as UTF-8; a request in a charset this
 * server does not read must be answered {@code 415}. Stateless.
 */
final class MediaTypes {
    private MediaTypes() {
    }

    /** Whether the media type of {@code contentType} (before any {@code ;}, trimmed) is {@code expected} (lower case), in any ASCII case. */
    static boolean isMediaType(String contentType, CharSequence expected) {
        CharSequence mediaType = HttpUtil.getMimeType(contentType);
        return mediaType != null && AsciiString.contentEqualsIgnoreCase(AsciiString.trim(mediaType), expected);
    }

    /**
     * Whether {@code contentType} names UTF-8 ({@code utf-8} or {@code utf8}, in any case, quotes
     * ignored) or no charset at all; {@link #charset} says which it names otherwise. Allocates
     * nothing: every long-polling request asks.
     */
    static boolean isUtf8OrNoCharset(String contentType) {
        int length = contentType.length();
        int from = 0;
        while (from <= length) {
            int semicolon = contentType.indexOf(';', from);
            int end = semicolon < 0 ? length : semicolon;
            int begin = from;
            while (begin < end && contentType.charAt(begin) <= ' ') {
                begin++;
            }
            if (end - begin >= 8 && contentType.regionMatches(true, begin, "charset=", 0, 8)) {
                // Its value without quotes, trimmed.
                int valueBegin = begin + 8;
                int valueEnd = end;
                while (valueBegin < valueEnd && (contentType.charAt(valueBegin) <= ' ' || contentType.charAt(valueBegin) == '"')) {
                    valueBegin++;
                }
                while (valueEnd > valueBegin && (contentType.charAt(valueEnd - 1) <= ' ' || contentType.charAt(valueEnd - 1) == '"')) {
                    valueEnd--;
                }
                return equalsIgnoringQuotes(contentType, valueBegin, valueEnd, "utf-8")
                        || equalsIgnoringQuotes(contentType, valueBegin, valueEnd, "utf8");
            }
            from = end + 1;
        }
        return true;
    }

    /** Whether {@code s[from, to)}, its double quotes left out and lower-cased, is {@code expected}. */
    private static boolean equalsIgnoringQuotes(String s, int from, int to, String expected) {
        int matched = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c == '"') {
                continue;
            }
            if (matched == expected.length() || Character.toLowerCase(c) != expected.charAt(matched)) {
                return false;
            }
            matched++;
        }
        return matched == expected.length();
    }

    /** The charset parameter of a content type, lower case without quotes, or null when it has none. */
    static String charset(String contentType) {
        int length = contentType.length();
        int from = 0;
        while (from <= length) {
            int semicolon = contentType.indexOf(';', from);
            int end = semicolon < 0 ? length : semicolon;
            String part = contentType.substring(from, end).trim();
            if (part.regionMatches(true, 0, "charset=", 0, 8)) {
                return part.substring(8).replace("\"", "").trim().toLowerCase(Locale.ROOT);
            }
            from = end + 1;
        }
        return null;
    }
}
