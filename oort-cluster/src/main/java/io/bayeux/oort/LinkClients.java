package io.bayeux.oort;

import io.bayeux.api.Message;
import io.bayeux.client.BayeuxClient;
import io.bayeux.client.ClientConfig;
import io.bayeux.client.transport.LongPollingTransport;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Makes the {@link BayeuxClient} of a link, timed by the Oort's settings (its replies awaited
 * at most half the failure timeout, its back-off capped by the max back-off), on the Oort's
 * own event loop, and the ext of its handshakes.
 */
final class LinkClients {
    private LinkClients() {
    }

    /**
     * A client to {@code cometURL}, over WebSocket (or long-polling only, as the Oort says); not
     * handshaken. Its WebSocket offers no permessage-deflate: every message of the observed
     * channels crosses a link, and inflating each one costs the receiving node CPU (1 to 2.5 %
     * of a node in the chat benchmark) for bandwidth that nodes of one network seldom lack.
     */
    static BayeuxClient newClient(Oort oort, String cometURL) {
        Duration failureTimeout = oort.getFailureTimeout();
        ClientConfig config = ClientConfig.builder()
                .eventLoopGroup(oort.clientGroup())
                .maxNetworkDelay(Duration.ofMillis(Math.max(100, failureTimeout.toMillis() / 2)))
                .connectTimeout(failureTimeout.compareTo(ClientConfig.DEFAULT_CONNECT_TIMEOUT) < 0 ? failureTimeout : ClientConfig.DEFAULT_CONNECT_TIMEOUT)
                .backoffIncrement(Duration.ofMillis(Math.min(1000, oort.maxBackoff().toMillis())))
                .maxBackoff(oort.maxBackoff())
                .websocketCompression(false)
                .build();
        return oort.clientWebSocket() ? new BayeuxClient(cometURL, config) : new BayeuxClient(cometURL, config, new LongPollingTransport(config));
    }

    /** CometD's handshake ext: this node's URL, id and hashed secret, the URL dialed, and on a link back the alias. */
    static Map<String, Object> handshakeFields(Oort oort, String cometURL, String alias) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put(Oort.EXT_OORT_URL_FIELD, oort.getURL());
        fields.put(Oort.EXT_OORT_ID_FIELD, oort.getId());
        fields.put(Oort.EXT_OORT_SECRET_FIELD, oort.hashedSecret());
        fields.put(Oort.EXT_COMET_URL_FIELD, cometURL);
        if (alias != null) {
            fields.put(Oort.EXT_OORT_ALIAS_URL_FIELD, alias);
        }
        return Map.of(Message.EXT_FIELD, Map.of(Oort.EXT_OORT_FIELD, fields));
    }
}
