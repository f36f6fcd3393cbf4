package io.bayeux.metrics;

import io.bayeux.api.Channel;
import io.bayeux.server.QueueOverflow;
import io.bayeux.server.spi.ServerObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.BaseUnits;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The {@link ServerObserver} that counts into Micrometer meters: the server's events become the
 * counters, timers and distributions of {@code docs/metrics.md}.
 *
 * <p>Thread-safe. Per message it only adds to counters (Micrometer's are {@code LongAdder}s, which
 * event loops do not contend on), found by identity for the transports (see
 * {@link LabelledCounters}). A histogram record costs more (Micrometer's updates a time-windowed
 * max and a shared bucket array, a few hundred nanoseconds: {@code ObserverBenchmark}), so the
 * server reports those per flush, not per message: one delivery latency per response and per
 * event loop round, one queue depth in {@link ServerObserver#QUEUE_DEPTH_SAMPLING} WebSocket
 * frames. Nothing is allocated per message but on refusals (a handshake or publish refused
 * allocates its label).
 */
final class MeterObserver implements ServerObserver {
    /** The buckets of the latency histograms: from half a millisecond to ten seconds. */
    static final Duration[] LATENCY_BUCKETS = {
            Duration.ofNanos(500_000), Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(5),
            Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100),
            Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(2500),
            Duration.ofSeconds(5), Duration.ofSeconds(10)};
    /**
     * The buckets of the meta handling histograms, finer and fewer than the latencies': handling
     * is mostly well under a millisecond, and each bucket is a line per meta channel in every scrape.
     */
    static final Duration[] META_BUCKETS = {
            Duration.ofNanos(100_000), Duration.ofNanos(250_000), Duration.ofNanos(500_000), Duration.ofMillis(1),
            Duration.ofNanos(2_500_000), Duration.ofMillis(10), Duration.ofMillis(50), Duration.ofMillis(250), Duration.ofSeconds(1)};
    /** The buckets of the queue depth histogram, in messages. */
    static final double[] DEPTH_BUCKETS = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096, 16384};

    private final MeterRegistry registry;
    private final List<Meter> meters = new ArrayList<>();
    private final LabelledCounters handshakes;
    private final LabelledCounters received;
    private final LabelledCounters published;
    private final LabelledCounters delivered;
    private final LabelledCounters refused;
    private final LabelledCounters recoveries;
    private final Counter replayed;
    private final Map<DisconnectCause, Counter> disconnects = new EnumMap<>(DisconnectCause.class);
    private final Map<QueueOverflow, Counter> overflows = new EnumMap<>(QueueOverflow.class);
    private final Map<String, Timer> metaHandling;
    private final Counter bytesRead;
    private final Counter bytesWritten;
    private final DistributionSummary queueDepth;
    private final Timer deliveryLatency;

    MeterObserver(MeterRegistry registry) {
        this.registry = registry;
        handshakes = new LabelledCounters(registry, "bayeux.handshakes",
                "Handshakes answered, by outcome: success, or the message of the refusal's error", null, "outcome",
                List.of("success", "handshake_denied"));
        received = new LabelledCounters(registry, "bayeux.messages.received",
                "Messages received from clients (meta messages included), by transport", null, "transport", ServerGauges.TRANSPORTS);
        published = new LabelledCounters(registry, "bayeux.messages.published",
                "Publishes of clients accepted, by transport", null, "transport", ServerGauges.TRANSPORTS);
        delivered = new LabelledCounters(registry, "bayeux.messages.delivered",
                "Messages flushed to the network from session queues, in frames or responses, by the session's transport",
                null, "transport", ServerGauges.TRANSPORTS);
        refused = new LabelledCounters(registry, "bayeux.publishes.refused",
                "Publishes of clients refused, by the message of the error", null, "reason",
                List.of("publish_denied", "channel_create_denied", "message_deleted", "channel_invalid"));
        recoveries = new LabelledCounters(registry, "bayeux.history.recoveries",
                "Subscriptions that asked to recover from a channel's history, by outcome: recovered, or why not", null, "outcome",
                List.of("recovered", "epoch", "ahead", "trimmed", "expired", "refused", "unavailable"));
        replayed = keep(Counter.builder("bayeux.history.replayed")
                .description("Messages given from channels' histories to subscriptions that recovered").register(registry));
        for (DisconnectCause cause : DisconnectCause.values()) {
            disconnects.put(cause, keep(Counter.builder("bayeux.disconnects")
                    .description("Sessions removed, by cause").tag("cause", label(cause)).register(registry)));
        }
        for (QueueOverflow policy : QueueOverflow.values()) {
            overflows.put(policy, keep(Counter.builder("bayeux.queue.overflows")
                    .description("Messages that met a full session queue, by the overflow policy applied")
                    .tag("policy", label(policy)).register(registry)));
        }
        metaHandling = Map.of(
                Channel.META_HANDSHAKE, metaTimer(Channel.META_HANDSHAKE),
                Channel.META_CONNECT, metaTimer(Channel.META_CONNECT),
                Channel.META_SUBSCRIBE, metaTimer(Channel.META_SUBSCRIBE),
                Channel.META_UNSUBSCRIBE, metaTimer(Channel.META_UNSUBSCRIBE),
                Channel.META_DISCONNECT, metaTimer(Channel.META_DISCONNECT));
        bytesRead = keep(Counter.builder("bayeux.network.received").baseUnit(BaseUnits.BYTES)
                .description("Bytes read from the network by connections opened while observed").register(registry));
        bytesWritten = keep(Counter.builder("bayeux.network.sent").baseUnit(BaseUnits.BYTES)
                .description("Bytes written to the network by connections opened while observed").register(registry));
        queueDepth = keep(DistributionSummary.builder("bayeux.queue.depth").baseUnit("messages")
                .description("The length of a session's queue when a frame or response takes from it (1 WebSocket frame in 16 per event loop)")
                .serviceLevelObjectives(DEPTH_BUCKETS).register(registry));
        deliveryLatency = keep(Timer.builder("bayeux.delivery.latency")
                .description("From a publish's arrival to the flush of its frame or response, of the message that waited longest;"
                        + " per response, and per event loop round of WebSocket frames")
                .serviceLevelObjectives(LATENCY_BUCKETS).register(registry));
    }

    private Timer metaTimer(String channel) {
        return keep(Timer.builder("bayeux.meta.handling")
                .description("The handling time of meta messages, by channel (a held connect until it is held)")
                .tag("channel", channel).serviceLevelObjectives(META_BUCKETS).register(registry));
    }

    private <M extends Meter> M keep(M meter) {
        meters.add(meter);
        return meter;
    }

    private static String label(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }

    /** The message part of a Bayeux error {@code code:args:message}. */
    static String messageOf(String error) {
        return error.substring(error.lastIndexOf(':') + 1);
    }

    @Override
    public void handshake(String transport, String error) {
        handshakes.get(error == null ? "success" : messageOf(error)).increment();
    }

    @Override
    public void sessionRemoved(String transport, DisconnectCause cause) {
        disconnects.get(cause).increment();
    }

    @Override
    public void received(String transport, int messages) {
        received.get(transport).increment(messages);
    }

    @Override
    public void published(String transport) {
        published.get(transport).increment();
    }

    @Override
    public void publishRefused(String error) {
        refused.get(messageOf(error)).increment();
    }

    @Override
    public void metaHandled(String channel, long nanos) {
        Timer timer = metaHandling.get(channel);
        if (timer != null) {
            timer.record(nanos, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void delivered(String transport, int messages, long oldestNanos, long flushedNanos) {
        delivered.get(transport == null ? "none" : transport).increment(messages);
        if (oldestNanos != 0) {
            deliveryLatency.record(flushedNanos - oldestNanos, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void queueDepth(int depth) {
        queueDepth.record(depth);
    }

    @Override
    public void queueOverflowed(QueueOverflow policy) {
        overflows.get(policy).increment();
    }

    @Override
    public void recovery(String outcome, long replayed) {
        recoveries.get(outcome).increment();
        if (replayed > 0) {
            this.replayed.increment(replayed);
        }
    }

    @Override
    public void bytesRead(long bytes) {
        bytesRead.increment(bytes);
    }

    @Override
    public void bytesWritten(long bytes) {
        bytesWritten.increment(bytes);
    }

    /** Removes every meter this made from the registry. */
    void remove() {
        meters.forEach(registry::remove);
        for (LabelledCounters counters : List.of(handshakes, received, published, delivered, refused, recoveries)) {
            counters.remove();
        }
    }

    @Override
    public String toString() {
        return "MeterObserver[" + registry.getClass().getSimpleName() + "]";
    }
}
