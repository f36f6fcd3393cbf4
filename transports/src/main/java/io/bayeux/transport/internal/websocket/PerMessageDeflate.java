package io.bayeux.transport.internal.websocket;

import io.bayeux.transport.WebSocketCompression;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtensionData;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtensionUtil;

import java.util.List;
import java.util.Map;

/**
 * The server's side of the {@code permessage-deflate} negotiation (RFC 7692, section 7.1):
 * the first acceptable offer of a client's {@code Sec-WebSocket-Extensions} is answered with
 * {@code server_no_context_takeover} and {@code client_no_context_takeover}, whether offered or
 * not (section 7.1.1 lets the server add both), so that neither side keeps zlib state between
 * messages. With {@link WebSocketCompression.Context} on, an offer without
 * {@code server_no_context_takeover} is answered without it: the server then compresses with a
 * context of the connection's own, whose matches reach back as far as the context's window or
 * the client's {@code server_max_window_bits}, whichever is smaller. Stateless.
 */
final class PerMessageDeflate {
    static final String NAME = "permessage-deflate";
    private static final String SERVER_NO_CONTEXT = "server_no_context_takeover";
    private static final String CLIENT_NO_CONTEXT = "client_no_context_takeover";
    private static final String SERVER_MAX_WINDOW = "server_max_window_bits";
    private static final String CLIENT_MAX_WINDOW = "client_max_window_bits";

    private PerMessageDeflate() {
    }

    /**
     * An accepted offer: the {@code Sec-WebSocket-Extensions} value of the answer, whether the
     * server keeps a compression context for the connection, and the window its client inflates
     * with (the context's, or less if the client asked for less).
     */
    record Answer(String header, boolean context, int windowBits) {
    }

    /**
     * The {@code Sec-WebSocket-Extensions} value that accepts the first acceptable
     * {@code permessage-deflate} offer of {@code offers} (the request's header values), or null
     * when none is (none made, malformed, or asking what this server does not do: a
     * {@code server_max_window_bits} below its shared compression's window when that is what
     * the connection gets, an unknown parameter).
     */
    static String accept(List<String> offers, WebSocketCompression compression) {
        Answer answer = negotiate(offers, compression);
        return answer == null ? null : answer.header();
    }

    /** Like {@link #accept}, saying whether the connection keeps a context too; null when no offer is accepted. */
    static Answer negotiate(List<String> offers, WebSocketCompression compression) {
        if (!compression.enabled()) {
            return null;
        }
        for (String header : offers) {
            List<WebSocketExtensionData> extensions;
            try {
                extensions = WebSocketExtensionUtil.extractExtensions(header);
            } catch (RuntimeException x) {
                // A header Netty cannot parse is no offer.
                continue;
            }
            for (WebSocketExtensionData offer : extensions) {
                if (NAME.equalsIgnoreCase(offer.name())) {
                    WebSocketCompression.Context context = compression.context();
                    boolean keep = context.enabled() && offer.parameters().keySet().stream().noneMatch(SERVER_NO_CONTEXT::equalsIgnoreCase);
                    int windowBits = keep ? Math.min(context.windowBits(), asked(offer.parameters())) : compression.windowBits();
                    String answer = answer(offer.parameters(), windowBits, compression.windowBits(), keep);
                    if (answer != null) {
                        return new Answer(answer, keep, windowBits);
                    }
                }
            }
        }
        return null;
    }

    /**
     * The answer to one offer with {@code parameters}, the server compressing with a window of
     * {@code windowBits} and a context of the connection's own if {@code context}, the client
     * told to use a window of at most {@code clientWindowBits}; or null to decline it.
     */
    private static String answer(Map<String, String> parameters, int windowBits, int clientWindowBits, boolean context) {
        StringBuilder answer = new StringBuilder(NAME);
        if (!context) {
            answer.append("; ").append(SERVER_NO_CONTEXT);
        }
        answer.append("; ").append(CLIENT_NO_CONTEXT);
        for (Map.Entry<String, String> parameter : parameters.entrySet()) {
            String value = parameter.getValue();
            switch (parameter.getKey().toLowerCase(java.util.Locale.ROOT)) {
                case SERVER_NO_CONTEXT, CLIENT_NO_CONTEXT -> {
                    if (value != null) {
                        return null;
                    }
                }
                case SERVER_MAX_WINDOW -> {
                    // The server may compress with a smaller window than asked, never a larger one:
                    // a broadcast is compressed once, with this server's window, for everyone (a
                    // connection's own context takes the window asked, up to the context's).
                    int asked = bits(value);
                    if (asked < windowBits) {
                        return null;
                    }
                    answer.append("; ").append(SERVER_MAX_WINDOW).append('=').append(windowBits);
                }
                case CLIENT_MAX_WINDOW -> {
                    int asked = value == null ? 15 : bits(value);
                    if (asked < 0) {
                        return null;
                    }
                    answer.append("; ").append(CLIENT_MAX_WINDOW).append('=').append(Math.min(asked, clientWindowBits));
                }
                default -> {
                    return null;
                }
            }
        }
        return answer.toString();
    }

    /**
     * The window an offer's {@code server_max_window_bits} asks for, 15 when it asks none (a
     * context's frames may use any window up to it: each connection's matches are checked
     * against its own).
     */
    private static int asked(Map<String, String> parameters) {
        for (Map.Entry<String, String> parameter : parameters.entrySet()) {
            if (SERVER_MAX_WINDOW.equalsIgnoreCase(parameter.getKey())) {
                int bits = bits(parameter.getValue());
                // A bad value is refused by answer().
                return bits < 0 ? 15 : bits;
            }
        }
        return 15;
    }

    /** A window size parameter's value, 8 to 15 (RFC 7692, 7.1.2), or -1 when it is not one. */
    private static int bits(String value) {
        if (value == null) {
            return -1;
        }
        String digits = value.startsWith("\"") && value.endsWith("\"") && value.length() > 2 ? value.substring(1, value.length() - 1) : value;
        if (digits.length() > 2 || digits.isEmpty() || !digits.chars().allMatch(Character::isDigit)) {
            return -1;
        }
        int bits = Integer.parseInt(digits);
        return bits >= 8 && bits <= 15 ? bits : -1;
    }
}
