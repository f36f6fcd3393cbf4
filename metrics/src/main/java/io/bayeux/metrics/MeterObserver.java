package io.bayeux.metrics;

import io.bayeux.api.Channel;
import io.bayeux.server.QueueOverflow;
import io.bayeux.server.spi.ServerObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
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
 * <p>Thread-safe. Per message and frame it only adds to counters, found by identity for the
 * transports: an event loop adds to {@link LoopTallies}, counts of its own with plain stores (no
 * atomic instruction), which a scrape sums. A histogram record costs more (Micrometer's updates a time-windowed
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
    /** The counters of every message and frame, which event loops add to without atomics. */
    private final LoopTallies tallies;
    private final ByTransport received;
    private final ByTransport published;
    private final ByTransport delivered;
    private final LabelledCounters refused;
    private final LabelledCounters recoveries;
    private final Counter replayed;
    private final Map<DisconnectCause, Counter> disconnects = new EnumMap<>(DisconnectCause.class);
    private final Map<QueueOverflow, Counter> overflows = new EnumMap<>(QueueOverflow.class);
    private final Map<String, Timer> metaHandling;
    private final int bytesRead;
    private final int bytesWritten;
    private final DistributionSummary queueDepth;
    private final Timer deliveryLatency;

    MeterObserver(MeterRegistry registry) {
        this.registry = registry;
        handshakes = new LabelledCounters(registry, "bayeux.handshakes",
                "Handshakes answered, by outcome: success, or the message of the refusal's error", null, "outcome",
                List.of("success", "handshake_denied"));
        tallies = new LoopTallies(registry);
        received = new ByTransport(registry, tallies, "bayeux.messages.received",
                "Messages received from clients (meta messages included), by transport");
        published = new ByTransport(registry, tallies, "bayeux.messages.published",
                "Publishes of clients accepted, by transport");
        delivered = new ByTransport(registry, tallies, "bayeux.messages.delivered",
                "Messages flushed to the network from session queues, in frames or responses, by the session's transport", "none");
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
        bytesRead = tallies.register("bayeux.network.received", "Bytes read from the network by connections opened while observed",
                BaseUnits.BYTES, Tags.empty());
        bytesWritten = tallies.register("bayeux.network.sent", "Bytes written to the network by connections opened while observed",
                BaseUnits.BYTES, Tags.empty());
        queueDepth = keep(DistributionSummary.builder("bayeux.queue.depth").baseUnit("messages")
                .description("The length of a session's queue when a frame or response takes from it (1 WebSocket frame in 64 per event loop)")
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
        received.add(transport, messages);
    }

    @Override
    public void published(String transport) {
        published.add(transport, 1);
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
        delivered.add(transport == null ? "none" : transport, messages);
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
        tallies.add(bytesRead, bytes);
    }

    @Override
    public void bytesWritten(long bytes) {
        tallies.add(bytesWritten, bytes);
    }

    /** Removes every meter this made from the registry. */
    void remove() {
        meters.forEach(registry::remove);
        for (LabelledCounters counters : List.of(handshakes, received.others, published.others, delivered.others, refused, recoveries)) {
            counters.remove();
        }
        tallies.remove();
    }

    /**
     * A counter by transport: the server's transports (and the values given, such as
     * {@code none}) in loop tallies, any other value in counters of its own, at most
     * {@link LabelledCounters#MAX_VALUES}.
     */
    private static final class ByTransport {
        private final String[] known;
        private final int[] slots;
        private final LoopTallies tallies;
        final LabelledCounters others;

        ByTransport(MeterRegistry registry, LoopTallies tallies, String name, String description, String... more) {
            this.tallies = tallies;
            List<String> values = new ArrayList<>(ServerGauges.TRANSPORTS);
            values.addAll(List.of(more));
            known = values.toArray(String[]::new);
            slots = new int[known.length];
            for (int i = 0; i < known.length; i++) {
                slots[i] = tallies.register(name, description, null, Tags.of("transport", known[i]));
            }
            others = new LabelledCounters(registry, name, description, null, "transport", List.of());
        }

        void add(String transport, long n) {
            // Transport names are constants: identity first, then equality.
            for (int i = 0; i < known.length; i++) {
                if (known[i] == transport) {
                    tallies.add(slots[i], n);
                    return;
                }
            }
            for (int i = 0; i < known.length; i++) {
                if (known[i].equals(transport)) {
                    tallies.add(slots[i], n);
                    return;
                }
            }
            others.get(transport).increment(n);
        }
    }

    @Override
    public String toString() {
        return "MeterObserver[" + registry.getClass().getSimpleName() + "]";
    }
}
