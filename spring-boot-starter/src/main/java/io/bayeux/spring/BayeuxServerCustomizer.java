package io.bayeux.spring;

import io.bayeux.transport.NettyBayeuxServer;

/**
 * Changes the auto-configured server's builder after the {@code bayeux.*} properties were applied
 * and before the server is built: every bean of this type is called, in {@code @Order}. The place
 * for what properties cannot say (an executor of the application's, a JSON codec, instrumentation),
 * and where other modules plug into the starter.
 */
@FunctionalInterface
public interface BayeuxServerCustomizer {
    void customize(NettyBayeuxServer.Builder builder);
}
