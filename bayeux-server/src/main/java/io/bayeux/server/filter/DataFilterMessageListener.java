package io.bayeux.server.filter;

import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A {@link ServerChannel.MessageListener} that passes the {@code data} of every published
 * message through a fixed chain of {@link DataFilter}s, in order, and publishes what the last
 * one returns.
 *
 * <p>Add it to a channel, or to a wildcard channel such as {@code /chat/**} to filter every
 * channel below it:
 * <pre>{@code
 * server.createChannelIfAbsent("/chat/**", channel -> channel.addListener(
 *         new DataFilterMessageListener(new NoMarkupFilter(), new MaskWordsFilter("darn"))));
 * }</pre>
 *
 * <p>The message is vetoed (not delivered; a remote publisher receives
 * {@code 404::message_deleted}) when a filter throws {@link DataFilter.AbortException}. It is
 * also vetoed when a filter fails with any other exception, which is logged: a filter that
 * cannot run must not let unfiltered data through. The message's data is replaced only when a
 * filter returned a different object; a frozen message whose data would change is vetoed too,
 * since it can no longer be changed.
 *
 * <p>Immutable and thread-safe when its filters are.
 */
public final class DataFilterMessageListener implements ServerChannel.MessageListener {
    private static final Logger LOG = LoggerFactory.getLogger(DataFilterMessageListener.class);

    private final List<DataFilter> filters;

    /**
     * @param filters the filters, applied in this order
     * @throws NullPointerException when {@code filters} or one of them is null
     */
    public DataFilterMessageListener(DataFilter... filters) {
        this(Arrays.asList(Objects.requireNonNull(filters, "filters")));
    }

    /**
     * @param filters the filters, applied in this order; copied
     * @throws NullPointerException when {@code filters} or one of them is null
     */
    public DataFilterMessageListener(List<? extends DataFilter> filters) {
        Objects.requireNonNull(filters, "filters");
        for (int i = 0; i < filters.size(); i++) {
            Objects.requireNonNull(filters.get(i), () -> "Null filter in " + filters);
        }
        this.filters = List.copyOf(filters);
    }

    /** The filters, in the order they are applied. */
    public List<DataFilter> getFilters() {
        return filters;
    }

    @Override
    public boolean onMessage(ServerSession from, ServerChannel channel, ServerMessage.Mutable message) {
        Object original = message.getData();
        Object data = original;
        for (DataFilter filter : filters) {
            try {
                data = filter.filter(from, channel, data);
            } catch (DataFilter.AbortException x) {
                LOG.debug("Message on {} from {} rejected by {}: {}", channel, from, filter, x.getMessage());
                return false;
            } catch (RuntimeException x) {
                LOG.warn("Filter {} failed on a message on {} from {}; the message is rejected", filter, channel, from, x);
                return false;
            }
        }
        if (data != original) {
            if (message.isFrozen()) {
                LOG.warn("Cannot replace the data of a frozen message on {}; the message is rejected: {}", channel, message);
                return false;
            }
            message.setData(data);
        }
        return true;
    }

    @Override
    public String toString() {
        return "DataFilterMessageListener" + filters;
    }
}
