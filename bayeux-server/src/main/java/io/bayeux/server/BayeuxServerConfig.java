package io.bayeux.server;

import io.bayeux.common.json.JacksonJsonCodec;
import io.bayeux.common.json.JsonCodec;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * The configuration of the Bayeux server core: an immutable value made by {@link #builder()}.
 * Every option has a named default.
 */
public final class BayeuxServerConfig {
    /** How long a {@code /meta/connect} is held: 20 s, under the 30 s at which intermediaries cut idle requests. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(20);
    /** How long a client waits between a connect reply and its next connect: 0. */
    public static final Duration DEFAULT_INTERVAL = Duration.ZERO;
    /** How long a session lives without a connect before it expires: 10 s. */
    public static final Duration DEFAULT_MAX_INTERVAL = Duration.ofSeconds(10);
    /** The longest a lazy message waits: 5 s. */
    public static final Duration DEFAULT_MAX_LAZY_TIMEOUT = Duration.ofSeconds(5);
    /** How often expired sessions and idle channels are swept: 1 s. */
    public static final Duration DEFAULT_SWEEP_PERIOD = Duration.ofSeconds(1);
    /** The transports allowed by default, in order of preference. */
    public static final List<String> DEFAULT_ALLOWED_TRANSPORTS = List.of("websocket", "long-polling");
    /** How many long-polling connects one browser may hold at once: 1 (browsers limit connections per host). */
    public static final int DEFAULT_MAX_SESSIONS_PER_BROWSER = 1;
    /** The interval advised to the extra tabs of a browser: 2 s. */
    public static final Duration DEFAULT_MULTI_SESSION_INTERVAL = Duration.ofSeconds(2);
    /**
     * The most JSON one push frame or connect reply carries of a session's queue: 64 KiB, the
     * largest text message many WebSocket clients take by default (Jetty's among them).
     */
    public static final int DEFAULT_MAX_BATCH_BYTES = 64 * 1024;
    /** The bound of a stalled reader's queue: 1,000 messages (see {@link #maxStalledQueue()}). */
    public static final int DEFAULT_MAX_STALLED_QUEUE = 1000;
    /** The shortest time between two connect replies that carry a session's messages: 100 ms (see {@link #connectGather()}). */
    public static final Duration DEFAULT_CONNECT_GATHER = Duration.ofMillis(100);

    private final Duration timeout;
    private final Duration interval;
    private final Duration maxInterval;
    private final Duration maxLazyTimeout;
    private final Duration sweepPeriod;
    private final boolean adviseMaxInterval;
    private final boolean broadcastToPublisher;
    private final int maxQueue;
    private final QueueOverflow queueOverflow;
    private final int maxBatchBytes;
    private final int maxStalledQueue;
    private final Duration connectGather;
    private final int maxSessionsPerBrowser;
    private final Duration multiSessionInterval;
    private final List<String> allowedTransports;
    /**
     * Whether {@link #maxQueue}, {@link #queueOverflow} and {@link #allowedTransports} were set on
     * the builder, not left at their defaults (see {@link #withTransportDefaults}).
     */
    private final boolean maxQueueSet;
    private final boolean queueOverflowSet;
    private final boolean allowedTransportsSet;
    private final JsonCodec jsonCodec;
    private final Scheduler scheduler;
    private final Executor executor;

    private BayeuxServerConfig(Builder builder) {
        this.timeout = builder.timeout;
        this.interval = builder.interval;
        this.maxInterval = builder.maxInterval;
        this.maxLazyTimeout = builder.maxLazyTimeout;
        this.sweepPeriod = builder.sweepPeriod;
        this.adviseMaxInterval = builder.adviseMaxInterval;
        this.broadcastToPublisher = builder.broadcastToPublisher;
        this.maxQueue = builder.maxQueue;
        this.queueOverflow = builder.queueOverflow;
        this.maxBatchBytes = builder.maxBatchBytes;
        this.maxStalledQueue = builder.maxStalledQueue;
        this.connectGather = builder.connectGather;
        this.maxSessionsPerBrowser = builder.maxSessionsPerBrowser;
        this.multiSessionInterval = builder.multiSessionInterval;
        this.allowedTransports = List.copyOf(builder.allowedTransports);
        this.maxQueueSet = builder.maxQueueSet;
        this.queueOverflowSet = builder.queueOverflowSet;
        this.allowedTransportsSet = builder.allowedTransportsSet;
        this.jsonCodec = builder.jsonCodec != null ? builder.jsonCodec : new JacksonJsonCodec();
        this.scheduler = builder.scheduler;
        this.executor = builder.executor;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The configuration with every default. */
    public static BayeuxServerConfig defaults() {
        return builder().build();
    }

    /**
     * This configuration with a transport's own settings where it has none of its own: the max
     * queue, its overflow policy and the allowed transports that were never set on this
     * configuration's builder take the given values; everything that was set is kept. This is how
     * a transport's settings and the application's Bayeux configuration merge, neither replacing
     * the other.
     */
    public BayeuxServerConfig withTransportDefaults(int maxQueue, QueueOverflow queueOverflow, List<String> allowedTransports) {
        Builder merged = new Builder(this);
        if (!maxQueueSet) {
            merged.maxQueue(maxQueue);
        }
        if (!queueOverflowSet) {
            merged.queueOverflow(queueOverflow);
        }
        if (!allowedTransportsSet) {
            merged.allowedTransports(allowedTransports);
        }
        return merged.build();
    }

    public Duration timeout() {
        return timeout;
    }

    public Duration interval() {
        return interval;
    }

    public Duration maxInterval() {
        return maxInterval;
    }

    public Duration maxLazyTimeout() {
        return maxLazyTimeout;
    }

    public Duration sweepPeriod() {
        return sweepPeriod;
    }

    /** Whether connect and handshake advice carry {@code maxInterval}; default false. */
    public boolean adviseMaxInterval() {
        return adviseMaxInterval;
    }

    /** Whether a publisher subscribed to a channel receives its own messages; default true. */
    public boolean broadcastToPublisher() {
        return broadcastToPublisher;
    }

    /** The default maximum queue size of a session; -1 (the default) for unbounded. */
    public int maxQueue() {
        return maxQueue;
    }

    /**
     * What happens to a message for a session whose queue holds {@link #maxQueue} messages;
     * {@link QueueOverflow#DISCONNECT} by default. Applied by the core's queue overflow policy, a
     * session listener that {@code NettyBayeuxServer} adds to its server; a server built without
     * the transports leaves full queues to the session's own {@code QueueMaxedListener}s.
     */
    public QueueOverflow queueOverflow() {
        return queueOverflow;
    }

    /**
     * The most bytes of JSON that one WebSocket frame, or one long-polling response, carries of
     * a session's queued messages (default {@value #DEFAULT_MAX_BATCH_BYTES}): a longer queue
     * goes out in several, in order. A single message larger than this goes alone. A session
     * whose {@code DeQueueListener}s shape its queue (acknowledged delivery) gets what they
     * leave, whole.
     */
    public int maxBatchBytes() {
        return maxBatchBytes;
    }

    /**
     * The bound of a stalled reader's queue, when lower than its {@code maxQueue} (default
     * {@value #DEFAULT_MAX_STALLED_QUEUE}; -1 for none): while the connection its messages are
     * pushed to stays stalled (unwritable, its reader taking no byte for the transport's stall
     * time), a queue this long counts as full, and the session's overflow handling (its
     * {@code QueueMaxedListener}s) decides what each new message does. So a reader that does not
     * read stops costing memory, whatever its {@code maxQueue}; once it reads again, its own
     * bound applies again.
     */
    public int maxStalledQueue() {
        return maxStalledQueue;
    }

    /**
     * The shortest time between two {@code /meta/connect} replies that carry the messages of a
     * busy session (long-polling, or any session whose messages ride only in connect replies);
     * {@link Duration#ZERO} answers a held connect as soon as a message is queued. When a
     * message comes for a busy session whose previous connect reply went out less than this long
     * ago, its held connect is answered once this long has passed since that reply, with every
     * message queued meanwhile. Busy: at the session's recent rate (what its last connect
     * replies carried over the time between them) this time would bring more than one message;
     * below that, waiting would save no reply, and the message goes at once. A session that
     * receives now and then waits for nothing; one that receives many messages gets them in
     * fewer, fuller replies, at most one per this time: each message waits at most this much
     * more, and the server and the client handle fewer requests per message.
     */
    public Duration connectGather() {
        return connectGather;
    }

    public List<String> allowedTransports() {
        return allowedTransports;
    }

    /**
     * How many {@code /meta/connect} one browser (known by its {@code BAYEUX_BROWSER} cookie)
     * may have held at once over long-polling; -1 for no limit. Default 1: a further tab is
     * answered at once with the {@code multiple-clients} advice.
     */
    public int maxSessionsPerBrowser() {
        return maxSessionsPerBrowser;
    }

    /** The {@code interval} advised with {@code multiple-clients}; default 2 s. */
    public Duration multiSessionInterval() {
        return multiSessionInterval;
    }

    /** The JSON codec; Jackson by default. */
    public JsonCodec jsonCodec() {
        return jsonCodec;
    }

    /** The scheduler, or {@code null} for a new system scheduler owned (and stopped) by the server. */
    public Scheduler scheduler() {
        return scheduler;
    }

    /**
     * Where the work that timers start runs: session expiry (with the application's
     * {@code RemoveListener}s and {@code SessionListener}s), channel removal listeners, the
     * completion of held connects (extensions, encoding, writing) and lazy flushes. The
     * scheduler only decides when. {@code null}: the executor the server is given by its
     * transport, else virtual threads owned by the server.
     */
    public Executor executor() {
        return executor;
    }

    @Override
    public String toString() {
        return "BayeuxServerConfig[timeout=" + timeout.toMillis() + "ms, interval=" + interval.toMillis()
                + "ms, maxInterval=" + maxInterval.toMillis() + "ms, maxLazyTimeout=" + maxLazyTimeout.toMillis()
                + "ms, sweepPeriod=" + sweepPeriod.toMillis() + "ms, maxQueue=" + maxQueue + ", queueOverflow=" + queueOverflow + ", maxBatchBytes=" + maxBatchBytes + ", maxStalledQueue=" + maxStalledQueue
                + ", connectGather=" + connectGather.toMillis() + "ms"
                + ", transports=" + allowedTransports + ", codec=" + jsonCodec + "]";
    }

    /** Builds a {@link BayeuxServerConfig}; each setter checks its argument. */
    public static final class Builder {
        private Duration timeout = DEFAULT_TIMEOUT;
        private Duration interval = DEFAULT_INTERVAL;
        private Duration maxInterval = DEFAULT_MAX_INTERVAL;
        private Duration maxLazyTimeout = DEFAULT_MAX_LAZY_TIMEOUT;
        private Duration sweepPeriod = DEFAULT_SWEEP_PERIOD;
        private boolean adviseMaxInterval;
        private boolean broadcastToPublisher = true;
        private int maxQueue = -1;
        private QueueOverflow queueOverflow = QueueOverflow.DISCONNECT;
        private int maxBatchBytes = DEFAULT_MAX_BATCH_BYTES;
        private int maxStalledQueue = DEFAULT_MAX_STALLED_QUEUE;
        private Duration connectGather = DEFAULT_CONNECT_GATHER;
        private int maxSessionsPerBrowser = DEFAULT_MAX_SESSIONS_PER_BROWSER;
        private Duration multiSessionInterval = DEFAULT_MULTI_SESSION_INTERVAL;
        private List<String> allowedTransports = DEFAULT_ALLOWED_TRANSPORTS;
        private boolean maxQueueSet;
        private boolean queueOverflowSet;
        private boolean allowedTransportsSet;
        private JsonCodec jsonCodec;
        private Scheduler scheduler;
        private Executor executor;

        private Builder() {
        }

        /** A builder holding everything {@code config} holds, what was set on it still counted as set. */
        private Builder(BayeuxServerConfig config) {
            this.timeout = config.timeout;
            this.interval = config.interval;
            this.maxInterval = config.maxInterval;
            this.maxLazyTimeout = config.maxLazyTimeout;
            this.sweepPeriod = config.sweepPeriod;
            this.adviseMaxInterval = config.adviseMaxInterval;
            this.broadcastToPublisher = config.broadcastToPublisher;
            this.maxQueue = config.maxQueue;
            this.queueOverflow = config.queueOverflow;
            this.maxBatchBytes = config.maxBatchBytes;
            this.maxStalledQueue = config.maxStalledQueue;
            this.connectGather = config.connectGather;
            this.maxSessionsPerBrowser = config.maxSessionsPerBrowser;
            this.multiSessionInterval = config.multiSessionInterval;
            this.allowedTransports = config.allowedTransports;
            this.maxQueueSet = config.maxQueueSet;
            this.queueOverflowSet = config.queueOverflowSet;
            this.allowedTransportsSet = config.allowedTransportsSet;
            this.jsonCodec = config.jsonCodec;
            this.scheduler = config.scheduler;
            this.executor = config.executor;
        }

        public Builder timeout(Duration timeout) {
            this.timeout = nonNegative("timeout", timeout);
            return this;
        }

        public Builder interval(Duration interval) {
            this.interval = nonNegative("interval", interval);
            return this;
        }

        public Builder maxInterval(Duration maxInterval) {
            this.maxInterval = positive("maxInterval", maxInterval);
            return this;
        }

        public Builder maxLazyTimeout(Duration maxLazyTimeout) {
            this.maxLazyTimeout = positive("maxLazyTimeout", maxLazyTimeout);
            return this;
        }

        public Builder sweepPeriod(Duration sweepPeriod) {
            this.sweepPeriod = positive("sweepPeriod", sweepPeriod);
            return this;
        }

        public Builder adviseMaxInterval(boolean adviseMaxInterval) {
            this.adviseMaxInterval = adviseMaxInterval;
            return this;
        }

        public Builder broadcastToPublisher(boolean broadcastToPublisher) {
            this.broadcastToPublisher = broadcastToPublisher;
            return this;
        }

        public Builder maxQueue(int maxQueue) {
            if (maxQueue < -1 || maxQueue == 0) {
                throw new IllegalArgumentException("maxQueue must be -1 (unbounded) or positive: " + maxQueue);
            }
            this.maxQueue = maxQueue;
            this.maxQueueSet = true;
            return this;
        }

        /** See {@link BayeuxServerConfig#queueOverflow()}. */
        public Builder queueOverflow(QueueOverflow queueOverflow) {
            this.queueOverflow = Objects.requireNonNull(queueOverflow, "queueOverflow");
            this.queueOverflowSet = true;
            return this;
        }

        public Builder maxBatchBytes(int maxBatchBytes) {
            if (maxBatchBytes < 1024) {
                throw new IllegalArgumentException("maxBatchBytes must be at least 1024: " + maxBatchBytes);
            }
            this.maxBatchBytes = maxBatchBytes;
            return this;
        }

        public Builder maxStalledQueue(int maxStalledQueue) {
            if (maxStalledQueue < -1 || maxStalledQueue == 0) {
                throw new IllegalArgumentException("maxStalledQueue must be -1 (none) or positive: " + maxStalledQueue);
            }
            this.maxStalledQueue = maxStalledQueue;
            return this;
        }

        public Builder connectGather(Duration connectGather) {
            this.connectGather = nonNegative("connectGather", connectGather);
            return this;
        }

        public Builder maxSessionsPerBrowser(int maxSessionsPerBrowser) {
            if (maxSessionsPerBrowser < -1 || maxSessionsPerBrowser == 0) {
                throw new IllegalArgumentException("maxSessionsPerBrowser must be -1 (no limit) or positive: " + maxSessionsPerBrowser);
            }
            this.maxSessionsPerBrowser = maxSessionsPerBrowser;
            return this;
        }

        public Builder multiSessionInterval(Duration multiSessionInterval) {
            this.multiSessionInterval = positive("multiSessionInterval", multiSessionInterval);
            return this;
        }

        public Builder allowedTransports(List<String> allowedTransports) {
            if (allowedTransports == null || allowedTransports.isEmpty() || allowedTransports.stream().anyMatch(t -> t == null || t.isBlank())) {
                throw new IllegalArgumentException("allowedTransports must name at least one transport: " + allowedTransports);
            }
            this.allowedTransports = allowedTransports;
            this.allowedTransportsSet = true;
            return this;
        }

        public Builder jsonCodec(JsonCodec jsonCodec) {
            this.jsonCodec = Objects.requireNonNull(jsonCodec, "jsonCodec");
            return this;
        }

        public Builder scheduler(Scheduler scheduler) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            return this;
        }

        /** See {@link BayeuxServerConfig#executor()}; {@code Runnable::run} runs timer work on the scheduler (tests that drive time by hand). */
        public Builder executor(Executor executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        public BayeuxServerConfig build() {
            return new BayeuxServerConfig(this);
        }

        private static Duration nonNegative(String name, Duration value) {
            if (value == null || value.isNegative()) {
                throw new IllegalArgumentException(name + " must be zero or positive: " + value);
            }
            return value;
        }

        private static Duration positive(String name, Duration value) {
            if (value == null || value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(name + " must be positive: " + value);
            }
            return value;
        }
    }
}
