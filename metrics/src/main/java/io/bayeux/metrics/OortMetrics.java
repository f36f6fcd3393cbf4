package io.bayeux.metrics;

import io.bayeux.api.Message;
import io.bayeux.api.client.ClientSessionChannel;
import io.bayeux.api.Promise;
import io.bayeux.api.client.ClientSession;
import io.bayeux.oort.CometListener;
import io.bayeux.oort.Oort;
import io.bayeux.oort.OortComet;
import io.bayeux.oort.OortReadiness;
import io.bayeux.server.spi.ReadinessCheck;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The meters of an {@link Oort} node: links up now ({@code bayeux_oort_links_up}), nodes that
 * joined and left ({@code bayeux_oort_joins_total}, {@code bayeux_oort_links_lost_total}), and
 * messages from other nodes dropped because this one could not republish them fast enough
 * ({@code bayeux_oort_dropped_total}), the message lag from each other node
 * ({@code bayeux_oort_lag_seconds}, by {@code node}); and its {@linkplain #readiness readiness check}.
 *
 * <p>The lag is measured by a ping: every {@link #PING_INTERVAL} a node bound to metrics
 * publishes its wall clock on {@value #PING_CHANNEL}, which the links of the others subscribe
 * to; it travels as the node's messages do (its session queue, the link, the other node's
 * client), and the node it reaches records the time it took, by the URL of the node it came
 * from. So only nodes bound to metrics are measured, and as exactly as the nodes' clocks agree
 * (a lag below 0 counts as 0). A node's histogram leaves the registry when the node leaves.
 *
 * <pre>{@code
 * OortMetrics oortMetrics = OortMetrics.bind(node.oort(), registry);
 * MetricsEndpoints.builder(registry).readinessCheck(OortMetrics.readiness(node.oort(), 1)).build();
 * }</pre>
 *
 * <p>Thread-safe; {@link #close()} removes its meters and its listener.
 */
public final class OortMetrics implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(OortMetrics.class);
    /** The channel of the lag pings, among the cloud's own (never republished to clients). */
    public static final String PING_CHANNEL = "/oort/ping";
    /** How often a node pings the others. */
    public static final Duration PING_INTERVAL = Duration.ofSeconds(1);
    /** After this many intervals without a ping, a link subscribes again (its session may be a new one). */
    private static final int RESUBSCRIBE_AFTER = 3;

    private final Oort oort;
    private final MeterRegistry registry;
    private final List<Meter> meters = new ArrayList<>();
    private final CometListener listener;
    /** The lag of each other node, by its URL; removed when it leaves. */
    private final Map<String, Timer> lags = new ConcurrentHashMap<>();
    /** The links subscribed to pings; the pinger's thread changes it, {@link #close()} reads it. */
    private final Map<ClientSession, PingSubscription> subscribed = new ConcurrentHashMap<>();
    private final ScheduledExecutorService pinger;

    private OortMetrics(Oort oort, MeterRegistry registry) {
        this.oort = oort;
        this.registry = registry;
        meters.add(Gauge.builder("bayeux.oort.links.up", oort, o -> o.getKnownComets().size())
                .description("Other nodes this node is linked with now, both ways").register(registry));
        meters.add(FunctionCounter.builder("bayeux.oort.dropped", oort, Oort::getDroppedCount)
                .description("Messages from other nodes dropped: this node could not republish them fast enough").register(registry));
        Counter joins = Counter.builder("bayeux.oort.joins").description("Other nodes that joined this one").register(registry);
        Counter lost = Counter.builder("bayeux.oort.links.lost").description("Other nodes that left this one: stopped, restarted or unreachable").register(registry);
        meters.add(joins);
        meters.add(lost);
        this.listener = new CometListener() {
            @Override
            public void cometJoined(Event event) {
                joins.increment();
            }

            @Override
            public void cometLeft(Event event) {
                lost.increment();
                Timer lag = lags.remove(event.cometURL());
                if (lag != null) {
                    registry.remove(lag);
                }
            }
        };
        this.pinger = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "oort-metrics-ping");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** On the pinger: pings the other nodes, and makes sure each link hears theirs. */
    private void tick() {
        try {
            if (!oort.isRunning()) {
                return;
            }
            // From the server itself: what the Oort's own session publishes never goes out to other nodes.
            oort.getBayeuxServer().createChannelIfAbsent(PING_CHANNEL).getReference()
                    .publish(null, Map.of("url", oort.getURL(), "time", System.currentTimeMillis()), Promise.noop());
            long now = System.nanoTime();
            long stale = PING_INTERVAL.toNanos() * RESUBSCRIBE_AFTER;
            Set<ClientSession> linked = new HashSet<>();
            for (String url : oort.getKnownComets()) {
                OortComet comet = oort.getComet(url);
                if (comet == null) {
                    continue;
                }
                ClientSession client = comet.getClient();
                linked.add(client);
                PingSubscription subscription = subscribed.computeIfAbsent(client, PingSubscription::new);
                if (now - subscription.heard > stale) {
                    subscription.subscribe(now);
                }
            }
            subscribed.keySet().retainAll(linked);
        } catch (RuntimeException x) {
            // The Oort stopping under the pinger: the next tick tries again.
            LOG.debug("Oort ping of {} failed", oort, x);
        }
    }

    /** On a link's thread: a ping from another node arrived. */
    private void pinged(Message message) {
        if (message.getData() instanceof Map<?, ?> data && data.get("url") instanceof String url
                && data.get("time") instanceof Number time && !url.equals(oort.getURL())) {
            long lag = Math.max(0, System.currentTimeMillis() - time.longValue());
            lags.computeIfAbsent(url, this::lagTimer).record(lag, TimeUnit.MILLISECONDS);
        }
    }

    /** One link's subscription to the pings of the node it reaches. */
    private final class PingSubscription implements ClientSessionChannel.MessageListener {
        private final ClientSession client;
        /** When (System.nanoTime()) it subscribed or last heard a ping; written by the link, read by the pinger. */
        volatile long heard = Long.MIN_VALUE / 2;

        PingSubscription(ClientSession client) {
            this.client = client;
        }

        /** Subscribes afresh: the link's session may be a new one, which the old subscription does not reach. */
        void subscribe(long now) {
            heard = now;
            client.getChannel(PING_CHANNEL).unsubscribe(this);
            client.getChannel(PING_CHANNEL).subscribe(this);
        }

        void unsubscribe() {
            client.getChannel(PING_CHANNEL).unsubscribe(this);
        }

        @Override
        public void onMessage(ClientSessionChannel channel, Message message) {
            heard = System.nanoTime();
            pinged(message);
        }
    }

    private Timer lagTimer(String url) {
        return Timer.builder("bayeux.oort.lag")
                .description("From a ping's publish on another node to its arrival here over the link, by the node's URL (the nodes' wall clocks)")
                .tag("node", url).serviceLevelObjectives(MeterObserver.LATENCY_BUCKETS).register(registry);
    }

    /** Registers the node's meters in {@code registry}; the joins and losses count from now on. */
    public static OortMetrics bind(Oort oort, MeterRegistry registry) {
        OortMetrics metrics = new OortMetrics(Objects.requireNonNull(oort, "oort"), Objects.requireNonNull(registry, "registry"));
        oort.addCometListener(metrics.listener);
        long interval = PING_INTERVAL.toMillis();
        metrics.pinger.scheduleWithFixedDelay(metrics::tick, 0, interval, TimeUnit.MILLISECONDS);
        return metrics;
    }

    /**
     * Ready when the node runs and is linked with at least {@code minimumLinks} other nodes
     * (0: running is enough, as for the first node of a cluster): the Oort's own {@link OortReadiness}.
     */
    public static ReadinessCheck readiness(Oort oort, int minimumLinks) {
        return new OortReadiness(oort, minimumLinks);
    }

    @Override
    public void close() {
        pinger.shutdownNow();
        oort.removeCometListener(listener);
        subscribed.values().forEach(PingSubscription::unsubscribe);
        meters.forEach(registry::remove);
        lags.values().forEach(registry::remove);
    }

    @Override
    public String toString() {
        return "OortMetrics[" + oort.getURL() + "]";
    }
}
