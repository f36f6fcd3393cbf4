package io.bayeux.oort.service;

import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ConfigurableServerChannel;
import io.bayeux.api.server.LocalSession;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.oort.CometListener;
import io.bayeux.oort.Oort;
import io.bayeux.oort.OortComet;
import io.bayeux.oort.object.Timers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An action run on the node that owns a resource, asked for from any node: {@link #forward}
 * sends a parameter to the owner, {@link #onForward} runs there and returns a {@link Result},
 * and {@link #onForwardSucceeded} or {@link #onForwardFailed} runs back here, exactly once per
 * forward: with the owner's result, or with a failure when the owner's node leaves the cloud
 * or does not answer within the {@linkplain #setTimeout timeout}.
 *
 * <p>Wire format (CometD 8's): a forward goes to the owner on {@code /service/oort/service/<name>},
 * to every node on {@code /oort/service/<name>} when the owner is unknown (null), with
 * {@code oort.service.id}, {@code oort.service.url} (the asking node) and
 * {@code oort.service.parameter}; the answer comes back on
 * {@code /service/oort/service/<name>/result} with {@code oort.service.id},
 * {@code oort.service.url} (the answering node), {@code oort.service.result} (true: success)
 * and {@code oort.service.data}. On a broadcast, nodes that do not own the resource answer
 * {@link Result#ignore}, which is not sent.
 *
 * <p>{@code onForward} runs on the thread that received the request (an I/O thread for a
 * remote one); the callbacks run on the thread that received the answer, or the timer's.
 *
 * @param <R> the result type
 * @param <C> the type of the caller's opaque context
 */
public abstract class OortService<R, C> {
    public static final String ID_FIELD = "oort.service.id";
    public static final String OORT_URL_FIELD = "oort.service.url";
    public static final String PARAMETER_FIELD = "oort.service.parameter";
    public static final String RESULT_FIELD = "oort.service.result";
    public static final String DATA_FIELD = "oort.service.data";
    /** The default timeout of a forward: 5 s. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

    protected final Logger logger;
    private final Oort oort;
    private final String name;
    private final String forwardChannel;
    private final String broadcastChannel;
    private final String resultChannel;
    private final AtomicLong ids = new AtomicLong();
    private final Map<Long, Pending<C>> pending = new ConcurrentHashMap<>();
    private final ServerChannel.MessageListener listener = this::onChannelMessage;
    private final CometListener cometListener = new CometListener() {
        @Override
        public void cometJoined(Event event) {
            joined(event.cometURL());
        }

        @Override
        public void cometLeft(Event event) {
            left(event.cometURL());
        }
    };
    private volatile Duration timeout = DEFAULT_TIMEOUT;
    private volatile LocalSession session;

    protected OortService(Oort oort, String name) {
        this.oort = Objects.requireNonNull(oort, "oort");
        this.name = Objects.requireNonNull(name, "name");
        if (name.isEmpty() || name.contains("*") || name.startsWith("/") || name.endsWith("/")) {
            throw new IllegalArgumentException("Bad service name: " + name);
        }
        this.forwardChannel = "/service/oort/service/" + name;
        this.broadcastChannel = "/oort/service/" + name;
        this.resultChannel = forwardChannel + "/result";
        this.logger = LoggerFactory.getLogger(getClass().getName() + "." + name);
    }

    public Oort getOort() {
        return oort;
    }

    public String getName() {
        return name;
    }

    public Duration getTimeout() {
        return timeout;
    }

    /** How long a forward waits for its answer; default 5 s. */
    public void setTimeout(Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
        this.timeout = timeout;
    }

    /** Starts the service (start the {@link Oort} first). */
    public synchronized void start() {
        if (session != null) {
            throw new IllegalStateException("Already started: " + this);
        }
        LocalSession s = oort.getBayeuxServer().newLocalSession("oort-service-" + name);
        s.handshake();
        session = s;
        BayeuxServer bayeux = oort.getBayeuxServer();
        for (String channel : List.of(forwardChannel, broadcastChannel, resultChannel)) {
            bayeux.createChannelIfAbsent(channel, ConfigurableServerChannel.Initializer.persistent()).getReference().addListener(listener);
        }
        oort.addCometListener(cometListener);
        oort.observeChannel(broadcastChannel);
    }

    /** Stops the service; pending forwards fail. */
    public void stop() {
        LocalSession s;
        synchronized (this) {
            s = session;
            session = null;
        }
        if (s == null) {
            return;
        }
        oort.deobserveChannel(broadcastChannel);
        oort.removeCometListener(cometListener);
        BayeuxServer bayeux = oort.getBayeuxServer();
        for (String channel : List.of(forwardChannel, broadcastChannel, resultChannel)) {
            ServerChannel serverChannel = bayeux.getChannel(channel);
            if (serverChannel != null) {
                serverChannel.removeListener(listener);
            }
        }
        s.disconnect();
        for (Long id : new ArrayList<>(pending.keySet())) {
            fail(id, "Service stopped");
        }
    }

    public boolean isRunning() {
        return session != null;
    }

    /**
     * Runs {@link #onForward} on the node at {@code targetOortURL} (this node included), or on
     * every node when it is null; the answer comes to {@link #onForwardSucceeded} or
     * {@link #onForwardFailed} with {@code context}, once.
     *
     * @return false when the target is not joined (nothing is sent, no callback runs)
     */
    protected boolean forward(String targetOortURL, Object parameter, C context) {
        LocalSession s = session;
        if (s == null) {
            throw new IllegalStateException("Not started: " + this);
        }
        String localURL = oort.getURL();
        OortComet comet = null;
        if (targetOortURL != null && !targetOortURL.equals(localURL)) {
            comet = oort.getKnownComets().contains(targetOortURL) ? oort.getComet(targetOortURL) : null;
            if (comet == null) {
                logger.debug("{} is not joined: cannot forward {}", targetOortURL, parameter);
                return false;
            }
        }
        long id = ids.incrementAndGet();
        Map<String, Object> data = new LinkedHashMap<>();
        data.put(ID_FIELD, id);
        data.put(OORT_URL_FIELD, localURL);
        data.put(PARAMETER_FIELD, parameter);
        Pending<C> entry = new Pending<>(targetOortURL, context);
        pending.put(id, entry);
        entry.timer = Timers.scheduler().schedule(() -> fail(id, "Timed out after " + timeout.toMillis() + " ms"),
                timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (targetOortURL == null) {
            s.getChannel(broadcastChannel).publish(data);
        } else if (comet == null) {
            received(data, false);
        } else {
            comet.getClient().getChannel(forwardChannel).publish(data);
        }
        return true;
    }

    /** How many forwards wait for their answer. */
    public int getPendingCount() {
        return pending.size();
    }

    /** Runs on the owner's node: the action. Return {@link Result#ignore} when this node does not own the resource. */
    protected abstract Result<R> onForward(Request request);

    /** Runs on the asking node: the owner succeeded. */
    protected abstract void onForwardSucceeded(R result, C context);

    /** Runs on the asking node: the owner failed, the owner's node left, or no answer came in time. */
    protected abstract void onForwardFailed(Object failure, C context);

    /** A node joined the cloud (for subclasses). */
    protected void joined(String oortURL) {
    }

    /** A node left the cloud: the forwards waiting for it fail now. */
    protected void left(String oortURL) {
        for (Map.Entry<Long, Pending<C>> entry : pending.entrySet()) {
            if (oortURL.equals(entry.getValue().target)) {
                fail(entry.getKey(), "Node " + oortURL + " left");
            }
        }
    }

    private boolean onChannelMessage(ServerSession from, ServerChannel channel, ServerMessage.Mutable message) {
        Map<String, Object> data = message.getDataAsMap();
        if (data == null) {
            return true;
        }
        String channelName = channel.getId();
        if (channelName.equals(broadcastChannel)) {
            received(data, true);
        } else if (getOort().isOort(from) || (from != null && from.isLocalSession())) {
            if (channelName.equals(forwardChannel)) {
                received(data, false);
            } else if (channelName.equals(resultChannel)) {
                answered(data);
            }
        }
        return true;
    }

    private void received(Map<String, Object> data, boolean broadcast) {
        if (!(data.get(OORT_URL_FIELD) instanceof String from) || !(data.get(ID_FIELD) instanceof Number id)) {
            return;
        }
        Result<R> result;
        try {
            result = onForward(new Request(oort.getURL(), from, data.get(PARAMETER_FIELD)));
            if (result == null) {
                result = Result.failure("onForward returned null");
            }
        } catch (RuntimeException x) {
            logger.debug("onForward failed", x);
            result = Result.failure(x.getMessage() == null ? x.getClass().getName() : x.getMessage());
        }
        if (result.isIgnore()) {
            if (broadcast) {
                return;
            }
            result = Result.failure(result.data());
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put(ID_FIELD, id.longValue());
        answer.put(OORT_URL_FIELD, oort.getURL());
        answer.put(RESULT_FIELD, result.isSuccess());
        answer.put(DATA_FIELD, result.data());
        if (from.equals(oort.getURL())) {
            answered(answer);
            return;
        }
        try {
            OortComet comet = oort.getComet(from);
            if (comet != null) {
                comet.getClient().getChannel(resultChannel).publish(answer);
            } else {
                logger.debug("No link back to {}: answer {} dropped", from, answer);
            }
        } catch (IllegalStateException x) {
            logger.debug("Cannot answer {}", from, x);
        }
    }

    @SuppressWarnings("unchecked")
    private void answered(Map<String, Object> data) {
        if (!(data.get(ID_FIELD) instanceof Number id)) {
            return;
        }
        Pending<C> entry = pending.remove(id.longValue());
        if (entry == null) {
            return;
        }
        cancel(entry);
        Object payload = data.get(DATA_FIELD);
        if (Boolean.TRUE.equals(data.get(RESULT_FIELD))) {
            try {
                onForwardSucceeded((R) payload, entry.context);
            } catch (RuntimeException x) {
                logger.warn("onForwardSucceeded failed", x);
            }
        } else {
            notifyFailed(payload, entry.context);
        }
    }

    private void fail(long id, Object failure) {
        Pending<C> entry = pending.remove(id);
        if (entry != null) {
            cancel(entry);
            notifyFailed(failure, entry.context);
        }
    }

    private void notifyFailed(Object failure, C context) {
        try {
            onForwardFailed(failure, context);
        } catch (RuntimeException x) {
            logger.warn("onForwardFailed failed", x);
        }
    }

    private static void cancel(Pending<?> entry) {
        ScheduledFuture<?> timer = entry.timer;
        if (timer != null) {
            timer.cancel(false);
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + name + "@" + oort.getURL() + "]";
    }

    private static final class Pending<C> {
        final String target;
        final C context;
        volatile ScheduledFuture<?> timer;

        Pending(String target, C context) {
            this.target = target;
            this.context = context;
        }
    }

    /** What {@link #onForward} gets: the parameter and the asking node. */
    public record Request(String localOortURL, String oortURL, Object data) {
        /** The parameter as a map (JSON objects arrive as maps). */
        @SuppressWarnings("unchecked")
        public Map<String, Object> getDataAsMap() {
            return (Map<String, Object>) data;
        }

        /** The asking node's URL. */
        public String getOortURL() {
            return oortURL;
        }

        public Object getData() {
            return data;
        }

        /** Whether the asking node is this one. */
        public boolean isLocal() {
            return localOortURL.equals(oortURL);
        }
    }

    /** What {@link #onForward} returns: success or failure with data, or ignore (not the owner). */
    public static final class Result<U> {
        private final Boolean success;
        private final Object data;

        private Result(Boolean success, Object data) {
            this.success = success;
            this.data = data;
        }

        public static <S> Result<S> success(S result) {
            return new Result<>(true, result);
        }

        public static <S> Result<S> failure(Object failure) {
            return new Result<>(false, failure);
        }

        /** This node does not own the resource: a broadcast ignores it; a forward to this node fails with {@code data}. */
        public static <S> Result<S> ignore(Object data) {
            return new Result<>(null, data);
        }

        public boolean isSuccess() {
            return Boolean.TRUE.equals(success);
        }

        public boolean isFailure() {
            return Boolean.FALSE.equals(success);
        }

        public boolean isIgnore() {
            return success == null;
        }

        public Object data() {
            return data;
        }

        @Override
        public String toString() {
            return (isIgnore() ? "ignore" : isSuccess() ? "success" : "failure") + "(" + data + ")";
        }
    }
}
