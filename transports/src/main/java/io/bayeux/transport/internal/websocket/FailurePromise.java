package io.bayeux.transport.internal.websocket;

import io.bayeux.api.server.ServerMessage;
import io.bayeux.server.spi.Endpoint;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultChannelPromise;
import java.util.List;
import java.util.function.Consumer;

/**
 * A write's promise that tells of its failure itself: no listener to add, and nothing to notify
 * when the write succeeds, which is every write but those pending when the connection closes.
 * Made on the connection's event loop, completed by Netty on it.
 */
final class FailurePromise extends DefaultChannelPromise {
    private final WebSocketEndpoint endpoint;
    private final List<ServerMessage> messages;
    private final Endpoint.PushFailure failure;
    private final Consumer<Throwable> failed;

    FailurePromise(WebSocketEndpoint endpoint, List<ServerMessage> messages, Endpoint.PushFailure failure, Consumer<Throwable> failed) {
        super(endpoint.channel());
        this.endpoint = endpoint;
        this.messages = messages;
        this.failure = failure;
        this.failed = failed;
    }

    @Override
    public boolean tryFailure(Throwable cause) {
        if (super.tryFailure(cause)) {
            endpoint.fail(messages, failure, failed, cause);
            return true;
        }
        return false;
    }

    @Override
    public ChannelPromise setFailure(Throwable cause) {
        super.setFailure(cause);
        endpoint.fail(messages, failure, failed, cause);
        return this;
    }
}
