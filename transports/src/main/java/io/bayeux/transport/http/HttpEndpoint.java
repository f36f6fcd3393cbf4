package io.bayeux.transport.http;

import io.bayeux.api.server.BayeuxContext;
import io.bayeux.server.spi.Endpoint;

import java.net.InetSocketAddress;

/**
 * One long-polling (or callback-polling) request: messages only ride in its response, so it
 * cannot push.
 */
record HttpEndpoint(String transportName, String browserId, String sessionBrowserId, String userAgent,
                    InetSocketAddress remoteAddress, BayeuxContext bayeuxContext) implements Endpoint {
    @Override
    public boolean canPush() {
        return false;
    }
}
