package io.bayeux.server.internal;

import io.bayeux.api.ChannelId;
import io.bayeux.api.server.Authorizer;
import io.bayeux.api.server.SecurityPolicy;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;

import java.util.List;

/** How the security policy and the authorizers of a channel and its wildcards combine. */
final class Authorization {
    private Authorization() {
    }

    /**
     * Decides an operation: the security policy first, then the authorizers of the channel and
     * of the existing wildcard channels that match it (one deny wins; otherwise one grant is
     * needed when there are authorizers at all).
     *
     * @param channel the channel when it exists, for the policy; null for CREATE
     */
    static Authorizer.Result decide(BayeuxServerImpl server, Authorizer.Operation operation, ChannelId channelId, ServerChannel channel,
                                    ServerSessionImpl session, ServerMessage message) {
        SecurityPolicy policy = server.getSecurityPolicy();
        boolean allowed;
        try {
            allowed = switch (operation) {
                case CREATE -> policy.canCreate(server, session, channelId.getId(), message);
                case SUBSCRIBE -> policy.canSubscribe(server, session, channel, message);
                case PUBLISH -> policy.canPublish(server, session, channel, message);
            };
        } catch (RuntimeException x) {
            server.logListenerFailure(policy, x);
            allowed = false;
        }
        if (!allowed) {
            return Authorizer.Result.deny("denied_by_security_policy");
        }
        boolean any = false;
        boolean granted = false;
        ServerChannelImpl self = server.channel(channelId.getId());
        List<String> wildIds = channelId.getWildIds();
        for (int i = -1; i < wildIds.size(); i++) {
            ServerChannelImpl candidate = i < 0 ? self : server.channel(wildIds.get(i));
            if (candidate == null) {
                continue;
            }
            for (Authorizer authorizer : candidate.authorizers()) {
                any = true;
                Authorizer.Result result;
                try {
                    result = authorizer.authorize(operation, channelId, session, message);
                } catch (RuntimeException x) {
                    server.logListenerFailure(authorizer, x);
                    result = Authorizer.Result.deny("authorizer_failed");
                }
                if (result instanceof Authorizer.Result.Denied) {
                    return result;
                }
                granted |= result.isGranted();
            }
        }
        return !any || granted ? Authorizer.Result.grant() : Authorizer.Result.deny("denied_by_not_granting");
    }
}
