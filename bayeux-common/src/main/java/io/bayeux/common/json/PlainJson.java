package io.bayeux.common.json;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Writes the common shape of a Bayeux message without a JSON generator: a map of string keys
 * whose values are printable ASCII strings, booleans, integers, nulls, and maps and lists of
 * those ({@code /meta/connect} replies, acknowledgements, most chat messages). The bytes are
 * those Jackson writes for the same map, which {@link JacksonJsonCodec#encode} falls back to
 * for everything else: a string with a control character or a character beyond ASCII, another
 * type of value, a key that is not a string, or nesting deeper than {@link #MAX_DEPTH}.
 *
 * <p>One instance per message written; not thread-safe.
 */
final class PlainJson {
    /** Maps and lists nested deeper than this are left to Jackson. */
    static final int MAX_DEPTH = 8;
    private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
    private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
    private static final byte[] NULL = {'n', 'u', 'l', 'l'};

    private byte[] bytes = new byte[256];
    private int length;
    /** The characters of the string being written. */
    private char[] chars = new char[64];

    private PlainJson() {
    }

    /** {@code map} as JSON, or null when it is not of the plain shape (Jackson writes it then). */
    static byte[] write(Map<?, ?> map) {
        PlainJson json = new PlainJson();
        return json.map(map, 0) ? Arrays.copyOf(json.bytes, json.length) : null;
    }

    private boolean map(Map<?, ?> map, int depth) {
        if (depth > MAX_DEPTH) {
            return false;
        }
        add((byte) '{');
        boolean first = true;
        for (Map.Entry<?, ?> field : map.entrySet()) {
            if (!(field.getKey() instanceof String key)) {
                return false;
            }
            if (!first) {
                add((byte) ',');
            }
            first = false;
            if (!string(key)) {
                return false;
            }
            add((byte) ':');
            if (!value(field.getValue(), depth)) {
                return false;
            }
        }
        add((byte) '}');
        return true;
    }

    private boolean value(Object value, int depth) {
        if (value == null) {
            add(NULL);
        } else if (value instanceof String string) {
            return string(string);
        } else if (value instanceof Boolean bool) {
            add(bool ? TRUE : FALSE);
        } else if (value instanceof Integer || value instanceof Long) {
            integer(((Number) value).longValue());
        } else if (value instanceof Map<?, ?> map) {
            return map(map, depth + 1);
        } else if (value instanceof List<?> list) {
            if (depth + 1 > MAX_DEPTH) {
                return false;
            }
            add((byte) '[');
            for (int i = 0, size = list.size(); i < size; i++) {
                if (i > 0) {
                    add((byte) ',');
                }
                if (!value(list.get(i), depth + 1)) {
                    return false;
                }
            }
            add((byte) ']');
        } else {
            return false;
        }
        return true;
    }

    /** A quoted string, {@code "} and {@code \} escaped as Jackson escapes them; false at a control character or beyond ASCII. */
    private boolean string(String string) {
        int size = string.length();
        ensure(size * 2 + 2);
        if (chars.length < size) {
            chars = new char[Math.max(size, chars.length * 2)];
        }
        // Copied out in one go (an intrinsic), then scanned without String's per-character checks.
        char[] in = chars;
        string.getChars(0, size, in, 0);
        byte[] out = bytes;
        int at = length;
        out[at++] = '"';
        for (int i = 0; i < size; i++) {
            char c = in[i];
            if (c < 0x20 || c > 0x7E) {
                return false;
            }
            if (c == '"' || c == '\\') {
                out[at++] = '\\';
            }
            out[at++] = (byte) c;
        }
        out[at++] = '"';
        length = at;
        return true;
    }

    private void integer(long value) {
        String digits = Long.toString(value);
        ensure(digits.length());
        for (int i = 0; i < digits.length(); i++) {
            bytes[length++] = (byte) digits.charAt(i);
        }
    }

    private void add(byte b) {
        ensure(1);
        bytes[length++] = b;
    }

    private void add(byte[] literal) {
        ensure(literal.length);
        System.arraycopy(literal, 0, bytes, length, literal.length);
        length += literal.length;
    }

    private void ensure(int more) {
        if (length + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + more));
        }
    }
}
