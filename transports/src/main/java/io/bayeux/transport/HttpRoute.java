package io.bayeux.transport;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * An application's answer to the HTTP requests on one path of the server's own port, beside the
 * Bayeux endpoint and the static files: a metrics scrape, a health probe, a page that mints a
 * token. Installed with {@link NettyBayeuxServer.Builder#route(String, HttpRoute)}.
 *
 * <p>A route runs on the server's executor, never on an event loop, so it may take its time (a
 * slow route holds one executor thread, as a slow listener does). It answers every method; one
 * that answers only some says so with a 405 {@link Reply}. A route that throws is answered 500
 * and logged; the connection stays usable. Routes must be thread-safe: requests of many
 * connections call one route at once.
 */
@FunctionalInterface
public interface HttpRoute {

    /** The reply to {@code request}; never null. */
    Reply answer(Request request) throws Exception;

    /**
     * This route for requests from a loopback address only ({@code 127.0.0.0/8}, {@code ::1});
     * every other peer is answered 403. How an endpoint that tells about the server's inside is
     * kept from the network by default.
     */
    default HttpRoute loopbackOnly() {
        HttpRoute route = this;
        return request -> request.fromLoopback() ? route.answer(request)
                : Reply.text(403, "Forbidden: " + request.path() + " answers loopback clients only");
    }

    /**
     * One HTTP request, read whole (its body is at most the server's maximum message size).
     *
     * @param method        the method, upper case: {@code GET}, {@code POST}, ...
     * @param path          the decoded path, without the query
     * @param parameters    the query parameters, decoded, each with its values in order (unmodifiable)
     * @param headers       the headers, names in lower case, the values of a repeated header
     *                      joined with {@code ", "} (unmodifiable)
     * @param body          the body, empty when there is none
     * @param remoteAddress the peer's address
     */
    record Request(String method, String path, Map<String, List<String>> parameters, Map<String, String> headers,
                   byte[] body, InetSocketAddress remoteAddress) {
        public Request {
            Objects.requireNonNull(method, "method");
            Objects.requireNonNull(path, "path");
            parameters = Map.copyOf(parameters);
            headers = Map.copyOf(headers);
            Objects.requireNonNull(body, "body");
            Objects.requireNonNull(remoteAddress, "remoteAddress");
        }

        /** The value of header {@code name} (any case), or null. */
        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }

        /** The first value of query parameter {@code name}, or null. */
        public String parameter(String name) {
            List<String> values = parameters.get(name);
            return values == null || values.isEmpty() ? null : values.get(0);
        }

        /** Whether the peer's address is a loopback address. */
        public boolean fromLoopback() {
            return remoteAddress.getAddress() != null && remoteAddress.getAddress().isLoopbackAddress();
        }
    }

    /**
     * The reply to one request. The server adds {@code Content-Length} and {@code Connection};
     * a reply to {@code HEAD} is sent without its body.
     *
     * @param status      the status code, 100 to 599
     * @param contentType the {@code Content-Type}, or null for a reply without a body type
     * @param body        the body, empty for none
     * @param headers     further headers (unmodifiable)
     */
    record Reply(int status, String contentType, byte[] body, Map<String, String> headers) {
        public Reply {
            if (status < 100 || status > 599) {
                throw new IllegalArgumentException("status must be 100 to 599: " + status);
            }
            Objects.requireNonNull(body, "body");
            headers = Map.copyOf(headers);
        }

        /** A {@code text/plain; charset=utf-8} reply. */
        public static Reply text(int status, String text) {
            return new Reply(status, "text/plain; charset=utf-8", text.getBytes(StandardCharsets.UTF_8), Map.of());
        }

        /** An {@code application/json} reply of {@code json}, which the caller has encoded. */
        public static Reply json(int status, String json) {
            return new Reply(status, "application/json", json.getBytes(StandardCharsets.UTF_8), Map.of());
        }

        /** This reply with header {@code name} set to {@code value}. */
        public Reply withHeader(String name, String value) {
            var more = new LinkedHashMap<>(headers);
            more.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
            return new Reply(status, contentType, body, more);
        }
    }
}
