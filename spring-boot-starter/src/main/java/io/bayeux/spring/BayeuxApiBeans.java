package io.bayeux.spring;

import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ConfigurableServerChannel;
import io.bayeux.api.server.SecurityPolicy;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Hands the application's beans of the server API's types to the auto-configured server once
 * every singleton exists (so that these beans may themselves inject the {@code BayeuxServer}),
 * before the server starts:
 * <ul>
 *   <li>a {@link SecurityPolicy} bean becomes the server's policy (more than one fails the start);
 *       the token authentication module plugs in here with its own policy bean;</li>
 *   <li>each {@link BayeuxServer.Extension} bean is added, in {@code @Order};</li>
 *   <li>each {@link BayeuxServer.BayeuxServerListener} bean (session, channel, subscription
 *       listeners) is added;</li>
 *   <li>each {@link ChannelAuthorizer} bean's authorizer is added to its channel.</li>
 * </ul>
 * Runs once, on the thread that refreshes the context.
 */
final class BayeuxApiBeans implements SmartInitializingSingleton {
    private final BayeuxServer bayeux;
    private final ObjectProvider<SecurityPolicy> policy;
    private final ObjectProvider<BayeuxServer.Extension> extensions;
    private final ObjectProvider<BayeuxServer.BayeuxServerListener> listeners;
    private final ObjectProvider<ChannelAuthorizer> authorizers;

    BayeuxApiBeans(BayeuxServer bayeux, ObjectProvider<SecurityPolicy> policy, ObjectProvider<BayeuxServer.Extension> extensions,
                   ObjectProvider<BayeuxServer.BayeuxServerListener> listeners, ObjectProvider<ChannelAuthorizer> authorizers) {
        this.bayeux = bayeux;
        this.policy = policy;
        this.extensions = extensions;
        this.listeners = listeners;
        this.authorizers = authorizers;
    }

    @Override
    public void afterSingletonsInstantiated() {
        SecurityPolicy securityPolicy = policy.getIfUnique();
        if (securityPolicy == null && policy.stream().findAny().isPresent()) {
            throw new IllegalStateException("More than one SecurityPolicy bean: the server has one policy; mark one @Primary or combine them");
        }
        if (securityPolicy != null) {
            bayeux.setSecurityPolicy(securityPolicy);
        }
        extensions.orderedStream().forEach(bayeux::addExtension);
        listeners.orderedStream().forEach(bayeux::addListener);
        authorizers.orderedStream().forEach(a -> bayeux.createChannelIfAbsent(a.channel(), persistent())
                .getReference().addAuthorizer(a.authorizer()));
    }

    private static ConfigurableServerChannel.Initializer persistent() {
        return channel -> channel.setPersistent(true);
    }
}
