package io.bayeux.api.server;

import io.bayeux.api.ChannelId;

/**
 * Decides whether an operation on a channel is allowed. Authorizers of a channel and of the
 * wildcard channels that match it are consulted together: the operation is allowed when at
 * least one grants and none denies; {@link Result#ignore()} abstains.
 */
@FunctionalInterface
public interface Authorizer {
    enum Operation {
        CREATE, SUBSCRIBE, PUBLISH
    }

    Result authorize(Operation operation, ChannelId channel, ServerSession session, ServerMessage message);

    /** The outcome of an authorization. */
    sealed interface Result {
        static Result grant() {
            return Granted.INSTANCE;
        }

        static Result ignore() {
            return Ignored.INSTANCE;
        }

        static Result deny(String reason) {
            return new Denied(reason == null ? "" : reason);
        }

        default boolean isGranted() {
            return this instanceof Granted;
        }

        default boolean isDenied() {
            return this instanceof Denied;
        }

        enum Granted implements Result {
            INSTANCE
        }

        enum Ignored implements Result {
            INSTANCE
        }

        /** A denial, with the reason that goes into the error reply. */
        record Denied(String reason) implements Result {
        }
    }

    /** An authorizer that grants everything: add it to open a channel guarded by others that ignore. */
    static Authorizer grantAll() {
        return (operation, channel, session, message) -> Result.grant();
    }
}
