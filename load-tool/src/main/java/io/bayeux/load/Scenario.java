package io.bayeux.load;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What a benchmark run does: an immutable value, made from the command line by
 * {@link ScenarioOptions} and reused unchanged by every run of a comparison.
 *
 * @param urls            the servers' endpoints; client {@code i} uses {@code urls[i % size]}
 * @param transport       {@code websocket} or {@code long-polling}
 * @param clients         how many clients
 * @param rooms           how many chat rooms {@code /chat/room/<i>}
 * @param roomsPerClient  how many distinct rooms each client joins, chosen at random
 * @param seed            the seed of every random choice (rooms, publishers)
 * @param rampUpRate      clients started per second
 * @param batchSize       messages per batch (one Bayeux batch, from one client)
 * @param batchInterval   time between batches; derived from {@code --rate} when given
 * @param batches         measured batches
 * @param warmupBatches   batches sent before measuring (counted, not measured)
 * @param messageSize     characters of chat text in each message
 * @param selfDelivery    whether a publisher receives its own messages (the servers' default)
 * @param idle            {@code --idle}: connect and subscribe, publish nothing, hold for {@code hold}
 * @param hold            how long an idle run holds its connections
 * @param ack             ask for acknowledged delivery (the ack extension)
 * @param soak            publish for this long instead of a number of batches, or null
 * @param cutEvery        close a random client's connection this often, or null
 * @param drainTimeout    the longest wait, after the last batch, for what is still on its way
 * @param connectTimeout  the longest wait for every client to be connected and subscribed
 * @param stalledClients  how many of the {@code clients} join their rooms over WebSocket and then
 *                        never read their socket again; they never publish and are not counted
 *                        as receivers
 * @param cutFor          with {@code cutEvery}: how long a cut client stays away (its sends fail at
 *                        once, as when the network is down, so it reconnects only after this);
 *                        null: it reconnects at once
 * @param recover         the {@code RecoveryExtension} on every client: after a re-handshake it
 *                        subscribes again with the position of the last message it got in each
 *                        room, and the server replays what it missed (the rooms need a history)
 * @param oneFrameBatches {@code --one-frame-batches}: a batch is one random client's Bayeux batch,
 *                        its messages in one frame (CometD's benchmark); by default each message
 *                        of a batch is published by its own random client, in a frame of its own,
 *                        as independent people typing would
 * @param spread          {@code --spread}: the messages of a batch are sent one by one, evenly over
 *                        the batch interval; by default all at the batch's instant
 * @param offerDeflate    whether WebSocket clients offer permessage-deflate (by default they do, as
 *                        browsers and CometD's clients do; {@code --no-client-compression}: they do not)
 */
public record Scenario(List<URI> urls, String transport, int clients, int rooms, int roomsPerClient, long seed,
                       int rampUpRate, int batchSize, Duration batchInterval, int batches, int warmupBatches,
                       int messageSize, boolean selfDelivery, boolean idle, Duration hold, boolean ack,
                       Duration soak, Duration cutEvery, Duration drainTimeout, Duration connectTimeout,
                       int stalledClients, Duration cutFor, boolean recover, boolean oneFrameBatches, boolean spread,
                       boolean offerDeflate) {
    public static final String WEBSOCKET = "websocket";
    public static final String LONG_POLLING = "long-polling";

    public Scenario {
        urls = List.copyOf(urls);
        if (urls.isEmpty()) {
            throw new IllegalArgumentException("At least one --url is needed");
        }
        if (!WEBSOCKET.equals(transport) && !LONG_POLLING.equals(transport)) {
            throw new IllegalArgumentException("--transport must be websocket or long-polling: " + transport);
        }
        positive("clients", clients);
        positive("rooms", rooms);
        positive("rooms-per-client", roomsPerClient);
        if (roomsPerClient > rooms) {
            throw new IllegalArgumentException("--rooms-per-client (" + roomsPerClient + ") cannot exceed --rooms (" + rooms + ")");
        }
        positive("ramp-up", rampUpRate);
        positive("batch-size", batchSize);
        Objects.requireNonNull(batchInterval, "batchInterval");
        if (batchInterval.isNegative() || batchInterval.isZero()) {
            throw new IllegalArgumentException("--batch-interval must be positive: " + batchInterval);
        }
        if (batches < 0 || warmupBatches < 0 || messageSize < 0) {
            throw new IllegalArgumentException("--batches, --warmup-batches and --message-size must not be negative");
        }
        if (stalledClients < 0 || stalledClients >= clients) {
            throw new IllegalArgumentException("--stalled-clients must be at least 0 and less than --clients (" + clients + "): " + stalledClients);
        }
        if (stalledClients > 0 && (!WEBSOCKET.equals(transport) || idle)) {
            throw new IllegalArgumentException("--stalled-clients needs --transport websocket and a run that publishes (not --idle)");
        }
        if (cutFor != null && (cutEvery == null || cutFor.isNegative() || cutFor.isZero())) {
            throw new IllegalArgumentException("--cut-for needs --cut-every and a positive duration: " + cutFor);
        }
    }

    /** The default traffic: each message from its own client, a batch's messages at one instant. */
    public Scenario(List<URI> urls, String transport, int clients, int rooms, int roomsPerClient, long seed,
                    int rampUpRate, int batchSize, Duration batchInterval, int batches, int warmupBatches,
                    int messageSize, boolean selfDelivery, boolean idle, Duration hold, boolean ack,
                    Duration soak, Duration cutEvery, Duration drainTimeout, Duration connectTimeout,
                    int stalledClients, Duration cutFor, boolean recover) {
        this(urls, transport, clients, rooms, roomsPerClient, seed, rampUpRate, batchSize, batchInterval, batches, warmupBatches,
                messageSize, selfDelivery, idle, hold, ack, soak, cutEvery, drainTimeout, connectTimeout, stalledClients, cutFor, recover,
                false, false, true);
    }

    /** The same with stalled clients, without {@code cutFor} nor {@code recover}. */
    public Scenario(List<URI> urls, String transport, int clients, int rooms, int roomsPerClient, long seed,
                    int rampUpRate, int batchSize, Duration batchInterval, int batches, int warmupBatches,
                    int messageSize, boolean selfDelivery, boolean idle, Duration hold, boolean ack,
                    Duration soak, Duration cutEvery, Duration drainTimeout, Duration connectTimeout, int stalledClients) {
        this(urls, transport, clients, rooms, roomsPerClient, seed, rampUpRate, batchSize, batchInterval, batches, warmupBatches,
                messageSize, selfDelivery, idle, hold, ack, soak, cutEvery, drainTimeout, connectTimeout, stalledClients, null, false);
    }

    /** The same without stalled clients. */
    public Scenario(List<URI> urls, String transport, int clients, int rooms, int roomsPerClient, long seed,
                    int rampUpRate, int batchSize, Duration batchInterval, int batches, int warmupBatches,
                    int messageSize, boolean selfDelivery, boolean idle, Duration hold, boolean ack,
                    Duration soak, Duration cutEvery, Duration drainTimeout, Duration connectTimeout) {
        this(urls, transport, clients, rooms, roomsPerClient, seed, rampUpRate, batchSize, batchInterval, batches, warmupBatches,
                messageSize, selfDelivery, idle, hold, ack, soak, cutEvery, drainTimeout, connectTimeout, 0, null, false);
    }

    /**
     * The same with connections cut every {@code cutEvery}, each for {@code cutFor} (null: the
     * client reconnects at once), with recovery on or off.
     */
    public Scenario withCuts(Duration cutEvery, Duration cutFor, boolean recover) {
        return new Scenario(urls, transport, clients, rooms, roomsPerClient, seed, rampUpRate, batchSize, batchInterval, batches,
                warmupBatches, messageSize, selfDelivery, idle, hold, ack, soak, cutEvery, drainTimeout, connectTimeout, stalledClients,
                cutFor, recover, oneFrameBatches, spread, offerDeflate);
    }

    /** The same with this traffic shape (see {@link #oneFrameBatches()} and {@link #spread()}). */
    public Scenario withTraffic(boolean oneFrameBatches, boolean spread) {
        return new Scenario(urls, transport, clients, rooms, roomsPerClient, seed, rampUpRate, batchSize, batchInterval, batches,
                warmupBatches, messageSize, selfDelivery, idle, hold, ack, soak, cutEvery, drainTimeout, connectTimeout, stalledClients,
                cutFor, recover, oneFrameBatches, spread, offerDeflate);
    }

    /** The same with clients that offer permessage-deflate or not (see {@link #offerDeflate()}). */
    public Scenario withOfferDeflate(boolean offerDeflate) {
        return new Scenario(urls, transport, clients, rooms, roomsPerClient, seed, rampUpRate, batchSize, batchInterval, batches,
                warmupBatches, messageSize, selfDelivery, idle, hold, ack, soak, cutEvery, drainTimeout, connectTimeout, stalledClients,
                cutFor, recover, oneFrameBatches, spread, offerDeflate);
    }

    /** The same publishing every {@code batchInterval}. */
    public Scenario withBatchInterval(Duration batchInterval) {
        return new Scenario(urls, transport, clients, rooms, roomsPerClient, seed, rampUpRate, batchSize, batchInterval, batches,
                warmupBatches, messageSize, selfDelivery, idle, hold, ack, soak, cutEvery, drainTimeout, connectTimeout, stalledClients,
                cutFor, recover, oneFrameBatches, spread, offerDeflate);
    }

    /** The clients that read (and publish): all but the stalled ones. */
    public int readers() {
        return clients - stalledClients;
    }

    private static void positive(String name, int value) {
        if (value <= 0) {
            throw new IllegalArgumentException("--" + name + " must be positive: " + value);
        }
    }

    /** Published messages per second offered: batch size over batch interval. */
    public double offeredRate() {
        return batchSize * 1e9 / batchInterval.toNanos();
    }

    /** The measured batches: those of {@code --batches}, or as many as fit in {@code --soak}. */
    public long measuredBatches() {
        if (idle) {
            return 0;
        }
        if (soak != null) {
            return Math.max(1, soak.toNanos() / batchInterval.toNanos());
        }
        return batches;
    }
}
