package io.bayeux.spring;

import io.bayeux.api.ChannelId;
import io.bayeux.api.server.Authorizer;

import java.util.Objects;

/**
 * An {@link Authorizer} for a channel, as a bean: the starter adds it to that channel (created if
 * absent, and made persistent so that it is never swept with its authorizer) before the server
 * starts. A wildcard channel ({@code /chat/**}) authorizes every channel it matches.
 *
 * <pre>{@code
 * @Bean
 * ChannelAuthorizer membersOnly() {
 *     return new ChannelAuthorizer("/members/**", (operation, channel, session, message) ->
 *             session.getAttribute("user") != null ? Authorizer.Result.grant() : Authorizer.Result.ignore());
 * }
 * }</pre>
 *
 * @param channel    the channel name, wildcards allowed
 * @param authorizer what decides
 */
public record ChannelAuthorizer(String channel, Authorizer authorizer) {
    public ChannelAuthorizer {
        ChannelId.of(Objects.requireNonNull(channel, "channel"));
        Objects.requireNonNull(authorizer, "authorizer");
    }
}
