package io.bayeux.client;

import io.bayeux.api.Message;
import io.bayeux.client.transport.ClientTransport;
import io.netty.channel.EventLoop;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * What one transport of a client reports, handed to the client on its event loop, one
 * response at a time and in order. Knowing its transport lets the client tell a stale
 * transport's failure from the current one's.
 *
 * <p>Thread-safe: any thread may report; the handlers run on the client's loop only.
 */
final class TransportEvents implements ClientTransport.Listener {
    private static final Logger LOG = LoggerFactory.getLogger(TransportEvents.class);

    /** Handles a failure of {@code source} to carry {@code messages} (empty when a connection went away). */
    interface FailureHandler {
        void failed(ClientTransport source, Throwable failure, List<Message.Mutable> messages);
    }

    private final ClientTransport source;
    private final EventLoop loop;
    private final Consumer<Message.Mutable> dispatch;
    private final FailureHandler failures;

    TransportEvents(ClientTransport source, EventLoop loop, Consumer<Message.Mutable> dispatch, FailureHandler failures) {
        this.source = source;
        this.loop = loop;
        this.dispatch = dispatch;
        this.failures = failures;
    }

    @Override
    public void onMessages(List<Message.Mutable> messages) {
        if (!loop.inEventLoop()) {
            // One response at a time, in order: everything of this client is handled on its loop.
            hop(() -> onMessages(messages));
            return;
        }
        LOG.trace("Received {}", messages);
        for (Message.Mutable message : messages) {
            try {
                dispatch.accept(message);
            } catch (RuntimeException x) {
                LOG.warn("Failed to handle {}", message, x);
            }
        }
    }

    @Override
    public void onFailure(Throwable failure, List<Message.Mutable> messages) {
        if (!loop.inEventLoop()) {
            hop(() -> onFailure(failure, messages));
            return;
        }
        failures.failed(source, failure, messages);
    }

    private void hop(Runnable task) {
        try {
            loop.execute(task);
        } catch (RejectedExecutionException x) {
            LOG.debug("Event loop gone, dropping what {} reported", source.name());
        }
    }
}
