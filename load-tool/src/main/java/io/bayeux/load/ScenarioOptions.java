package io.bayeux.load;

import picocli.CommandLine.Option;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The scenario's command-line options, shared by the benchmark and by {@code compare}. */
public final class ScenarioOptions {
    @Option(names = "--url", paramLabel = "URL", description = "The server's Bayeux endpoint; repeat it to spread the clients over several nodes (client i uses URL i mod n). Default: http://127.0.0.1:8080/cometd")
    List<URI> urls = new ArrayList<>();

    @Option(names = "--transport", paramLabel = "NAME", description = "websocket or long-polling (default: ${DEFAULT-VALUE})")
    String transport = Scenario.WEBSOCKET;

    @Option(names = "--clients", description = "Clients (default: ${DEFAULT-VALUE})")
    int clients = 1000;

    @Option(names = "--rooms", description = "Chat rooms /chat/room/<i> (default: ${DEFAULT-VALUE})")
    int rooms = 100;

    @Option(names = "--rooms-per-client", description = "Rooms each client joins, chosen at random (default: ${DEFAULT-VALUE})")
    int roomsPerClient = 10;

    @Option(names = "--seed", description = "Seed of the random choices (default: ${DEFAULT-VALUE})")
    long seed = 42;

    @Option(names = "--ramp-up", paramLabel = "N", description = "Clients started per second (default: ${DEFAULT-VALUE})")
    int rampUp = 500;

    @Option(names = "--batch-size", description = "Messages per batch, each from its own random client (with --one-frame-batches: from one client in one Bayeux batch) (default: ${DEFAULT-VALUE})")
    int batchSize = 10;

    @Option(names = "--one-frame-batches", description = "A batch is one random client's Bayeux batch, its messages in one frame (CometD's benchmark); by default each message of a batch comes from its own random client in a frame of its own")
    boolean oneFrameBatches;

    @Option(names = "--no-client-compression", description = "The WebSocket clients do not offer permessage-deflate (by default they do, as browsers do)")
    boolean noClientCompression;

    @Option(names = "--spread", description = "Send the messages of a batch one by one, evenly over the batch interval, instead of all at the batch's instant")
    boolean spread;

    @Option(names = "--batch-interval", paramLabel = "MS", description = "Milliseconds between batches (default: ${DEFAULT-VALUE})")
    double batchIntervalMillis = 10;

    @Option(names = "--rate", paramLabel = "MSG/S", description = "Published messages per second; sets the batch interval (batch size / rate)")
    Double rate;

    @Option(names = "--delivery-rate", paramLabel = "MSG/S", description = "Deliveries per second wanted; sets the publish rate to this over the mean subscribers per published message")
    Double deliveryRate;

    @Option(names = "--batches", description = "Measured batches (default: ${DEFAULT-VALUE})")
    int batches = 1000;

    @Option(names = "--warmup-batches", description = "Batches before measuring; counted, not timed (default: ${DEFAULT-VALUE})")
    int warmupBatches = 100;

    @Option(names = "--message-size", paramLabel = "CHARS", description = "Characters of chat text per message, words picked at random (default: ${DEFAULT-VALUE})")
    int messageSize = 50;

    @Option(names = "--no-self-delivery", negatable = false, description = "The server does not send publishers their own messages (both servers do by default)")
    boolean noSelfDelivery;

    @Option(names = "--idle", description = "Connect and subscribe, publish nothing, hold the connections for --hold (memory per connection)")
    boolean idle;

    @Option(names = "--hold", paramLabel = "DURATION", description = "How long --idle holds the connections, e.g. 30s, 5m (default: ${DEFAULT-VALUE})")
    String hold = "30s";

    @Option(names = "--ack", description = "Acknowledged delivery: the ack extension on every client (the servers must have it)")
    boolean ack;

    @Option(names = "--soak", paramLabel = "DURATION", description = "Publish for this long (e.g. 10m) instead of --batches")
    String soak;

    @Option(names = "--cut-every", paramLabel = "SECONDS", description = "Close a random client's connection (client side) this often")
    Double cutEvery;

    @Option(names = "--cut-for", paramLabel = "DURATION", description = "With --cut-every: the cut client stays away this long (its sends fail, as when the network is down), e.g. 5s; longer than the server's max interval, its session expires and it handshakes again")
    String cutFor;

    @Option(names = "--recover", description = "Recovery on every client (RecoveryExtension): after a re-handshake it subscribes again from the last message it got in each room, and the server replays what it missed (the rooms need a history: server --history-size)")
    boolean recover;

    @Option(names = "--stalled-clients", paramLabel = "N", description = "Of the --clients, N join their rooms over WebSocket, then never read their socket again (the server sees a full socket); they never publish and are not counted as receivers. Reports how long the others took to get every message, and the server's memory growth (default: ${DEFAULT-VALUE})")
    int stalledClients;

    @Option(names = "--drain-timeout", paramLabel = "DURATION", description = "The longest wait after the last batch for messages still on their way (default: ${DEFAULT-VALUE})")
    String drainTimeout = "30s";

    @Option(names = "--connect-timeout", paramLabel = "DURATION", description = "The longest wait for all clients to be connected and subscribed, on top of the ramp-up (default: ${DEFAULT-VALUE})")
    String connectTimeout = "60s";

    @Option(names = "--windows", paramLabel = "DURATION", description = "Also report the measured phase window by window, e.g. 10s: for the messages published in each window, deliveries/s, latency p50/p99/max and lost (with --warmup-batches 0: a fresh server's first seconds)")
    String windows;

    /** The length of a {@code --windows} window, or null when none was asked for. */
    public Duration windows() {
        return windows == null ? null : parseDuration(windows, "--windows");
    }

    /** The scenario these options describe; {@code defaultUrl} when no --url was given. */
    public Scenario toScenario(URI defaultUrl) {
        List<URI> targets = urls.isEmpty() ? List.of(defaultUrl) : urls;
        Duration interval = Duration.ofNanos(Math.round(batchIntervalMillis * 1_000_000));
        Duration ramp = Duration.ofMillis(1000L * clients / Math.max(1, rampUp));
        Scenario base = new Scenario(targets, transport, clients, rooms, roomsPerClient, seed, rampUp, batchSize, interval,
                batches, warmupBatches, messageSize, !noSelfDelivery, idle, parseDuration(hold, "--hold"), ack,
                soak == null ? null : parseDuration(soak, "--soak"),
                cutEvery == null ? null : Duration.ofMillis(Math.round(cutEvery * 1000)),
                parseDuration(drainTimeout, "--drain-timeout"), parseDuration(connectTimeout, "--connect-timeout").plus(ramp), stalledClients,
                cutFor == null ? null : parseDuration(cutFor, "--cut-for"), recover, oneFrameBatches, spread, !noClientCompression);
        Double publishRate = rate;
        if (deliveryRate != null) {
            if (rate != null) {
                throw new IllegalArgumentException("Give --rate or --delivery-rate, not both");
            }
            double perMessage = new Ledger(base.readers(), rooms, roomsPerClient, seed, !noSelfDelivery).deliveriesPerMessage();
            publishRate = deliveryRate / perMessage;
        }
        if (publishRate == null) {
            return base;
        }
        if (publishRate <= 0) {
            throw new IllegalArgumentException("The rate must be positive: " + publishRate);
        }
        return base.withBatchInterval(Duration.ofNanos(Math.round(batchSize * 1e9 / publishRate)));
    }

    /** {@code 90s}, {@code 10m}, {@code 1h}, {@code 500ms}, or plain seconds. */
    static Duration parseDuration(String text, String option) {
        return io.bayeux.common.Durations.parse(text, option);
    }
}
