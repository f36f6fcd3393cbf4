package io.bayeux.load;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolHandler;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtensionData;
import io.netty.handler.codec.http.websocketx.extensions.compression.PerMessageDeflateClientExtensionHandshaker;
import io.netty.util.concurrent.EventExecutor;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The density mode's idle clients ({@link IdleClient}), on one event-loop group of this process.
 * Client {@code i} binds its socket to source address {@code i mod n} of the given loopback
 * addresses (port 0: the kernel picks one), so each address has its own ephemeral port range.
 * It subscribes to the broadcast channel and to {@code roomsPerClient - 1} of the rooms. Where
 * the clients are spread over {@code processes} processes, this one's are numbered
 * {@code process}, {@code process + processes}, ... so that together they are numbered as one
 * process's would be.
 * When offered, permessage-deflate is offered as the project's Java client does (no parameters,
 * the client's own messages uncompressed).
 *
 * <p>Thread-safety: {@link #open}, {@link #leaveAll} and {@link #broadcast} are called by one
 * thread, the run's; the counters are atomic, the set of clients is concurrent.
 */
final class IdleClients implements DensityClients {
    /** Channels of the idle clients: the broadcast channel every client joins, and the rooms. */
    static final String BROADCAST_CHANNEL = "/chat/all";
    static final int MAX_MESSAGE_SIZE = 1024 * 1024;
    private static final long POLL_MILLIS = 20;

    private final URI wsUrl;
    private final List<InetAddress> sourceAddresses;
    private final boolean offerDeflate;
    private final int rooms;
    private final int roomsPerClient;
    private final int concurrency;
    private final int process;
    private final int processes;
    private final EventLoopGroup group;
    private final Bootstrap bootstrap;
    private final Set<IdleClient> live = ConcurrentHashMap.newKeySet();
    /** Clients still setting up; each holds one permit of {@link #setups}. */
    private final Set<IdleClient> settingUp = ConcurrentHashMap.newKeySet();
    private final Semaphore setups;
    private final AtomicInteger ready = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();
    private final AtomicReference<String> firstRefusal = new AtomicReference<>();
    /** Why an event loop could not switch to SCHED_BATCH, the first time one could not. */
    private final AtomicReference<String> schedulingFailure = new AtomicReference<>();
    private final Map<String, AtomicInteger> perSource = new ConcurrentHashMap<>();
    private final AtomicInteger arrivals = new AtomicInteger();
    private final AtomicLong lastArrivalNanos = new AtomicLong();
    private volatile String expectedBroadcast;
    private int opened;

    /**
     * @param url             the server's endpoint ({@code http://} or {@code ws://})
     * @param sourceAddresses the local addresses the sockets bind, in turn
     * @param rooms           the rooms besides the broadcast channel
     * @param concurrency     the most clients setting up at once
     * @param batchScheduling whether the event loops run in {@code SCHED_BATCH} ({@link BatchScheduling})
     * @param process         this process's number among {@code processes}, from 0
     * @param processes       how many processes open the clients together
     */
    IdleClients(URI url, List<InetAddress> sourceAddresses, boolean offerDeflate, int rooms, int roomsPerClient,
                int concurrency, int ioThreads, boolean batchScheduling, Duration connectTimeout, int process, int processes) {
        if (processes < 1 || process < 0 || process >= processes) {
            throw new IllegalArgumentException("Process " + process + " of " + processes);
        }
        if (sourceAddresses.isEmpty()) {
            throw new IllegalArgumentException("No source address");
        }
        if (roomsPerClient < 1 || roomsPerClient - 1 > rooms) {
            throw new IllegalArgumentException("--rooms-per-client must be 1 to rooms + 1: " + roomsPerClient);
        }
        String scheme = url.getScheme();
        if (!"http".equals(scheme) && !"ws".equals(scheme)) {
            throw new IllegalArgumentException("density needs a plain http:// or ws:// URL: " + url);
        }
        this.wsUrl = URI.create("ws://" + url.getHost() + ":" + (url.getPort() > 0 ? url.getPort() : 80) + url.getRawPath());
        this.sourceAddresses = List.copyOf(sourceAddresses);
        this.offerDeflate = offerDeflate;
        this.rooms = rooms;
        this.roomsPerClient = roomsPerClient;
        this.concurrency = concurrency;
        this.process = process;
        this.processes = processes;
        this.setups = new Semaphore(concurrency);
        // Native epoll where there is one, as the server uses: fewer system calls per read than
        // the JDK's selector, so the clients take less of the CPU they share with the server.
        boolean epoll = Epoll.isAvailable();
        ThreadFactory threads = BatchScheduling.threads("density-client", batchScheduling, failure -> {
            if (schedulingFailure.compareAndSet(null, failure)) {
                System.err.println("density clients: an event loop runs with normal scheduling, not SCHED_BATCH: " + failure);
            }
        });
        this.group = new MultiThreadIoEventLoopGroup(ioThreads, threads, epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        this.bootstrap = new Bootstrap().group(group).channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) connectTimeout.toMillis());
    }

    /**
     * Opens clients until {@code total} are ready, at most {@code concurrency} setting up at once,
     * and returns how long it took in nanoseconds; throws {@link BenchmarkException} when one is
     * refused or they are not all ready within {@code timeout}.
     */
    @Override
    public long open(int total, Duration timeout) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        while (opened < total) {
            if (!setups.tryAcquire(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                throw notReady(total, timeout);
            }
            checkRefusals();
            openOne(opened++);
        }
        while (ready.get() < total) {
            checkRefusals();
            if (System.nanoTime() > deadline) {
                throw notReady(total, timeout);
            }
            Thread.sleep(POLL_MILLIS);
        }
        return System.nanoTime() - start;
    }

    private BenchmarkException notReady(int total, Duration timeout) {
        return new BenchmarkException("Not ready after " + timeout.toSeconds() + " s: " + ready.get() + " of " + total + " clients");
    }

    private void checkRefusals() {
        if (refused.get() > 0) {
            throw new BenchmarkException(refused.get() + " clients refused or failed; the first: " + firstRefusal.get());
        }
    }

    private void openOne(int local) {
        int index = local * processes + process;
        List<String> channels = new ArrayList<>(roomsPerClient);
        channels.add(BROADCAST_CHANNEL);
        for (int k = 0; k < roomsPerClient - 1; k++) {
            channels.add(ChatClients.roomChannel((index * (roomsPerClient - 1) + k) % rooms));
        }
        IdleClient client = new IdleClient(BROADCAST_CHANNEL, channels, new Events());
        settingUp.add(client);
        InetAddress source = sourceAddresses.get(index % sourceAddresses.size());
        perSource.computeIfAbsent(source.getHostAddress(), a -> new AtomicInteger()).incrementAndGet();
        bootstrap.clone().handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                ch.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(64 * 1024));
                if (offerDeflate) {
                    ch.pipeline().addLast(new DeflateAnswer(client));
                }
                ch.pipeline().addLast(new WebSocketClientProtocolHandler(WebSocketClientProtocolConfig.newBuilder()
                                .webSocketUri(wsUrl).maxFramePayloadLength(MAX_MESSAGE_SIZE).allowExtensions(offerDeflate)
                                .customHeaders(offerDeflate ? DEFLATE_OFFER : EmptyHttpHeaders.INSTANCE)
                                .handshakeTimeoutMillis(30_000).dropPongFrames(true).withUTF8Validator(false).build()),
                        new WebSocketFrameAggregator(MAX_MESSAGE_SIZE), client);
            }
        }).connect(new InetSocketAddress(wsUrl.getHost(), wsUrl.getPort()), new InetSocketAddress(source, 0))
                .addListener(future -> {
                    if (future.isSuccess()) {
                        live.add(client);
                    } else {
                        settle(client);
                        refusal("connect from " + source.getHostAddress() + ": " + future.cause());
                    }
                });
    }

    /**
     * The offer of the project's Java client (Netty's, made by its permessage-deflate handshaker:
     * its own messages go uncompressed), as an upgrade header. The answer is read by
     * {@link DeflateAnswer}; the client inflates what it gets itself ({@link IdleClient}).
     */
    private static final HttpHeaders DEFLATE_OFFER = deflateOffer();

    private static HttpHeaders deflateOffer() {
        WebSocketExtensionData offer = new PerMessageDeflateClientExtensionHandshaker(6, false, 15, true, false).newRequestData();
        StringBuilder header = new StringBuilder(offer.name());
        offer.parameters().forEach((name, value) -> {
            header.append("; ").append(name);
            if (value != null) {
                header.append('=').append(value);
            }
        });
        return new DefaultHttpHeaders().add(HttpHeaderNames.SEC_WEBSOCKET_EXTENSIONS, header.toString());
    }

    /** Tells a client, from the server's answer to its upgrade, whether compressed messages come without context; then leaves. */
    private static final class DeflateAnswer extends ChannelInboundHandlerAdapter {
        private final IdleClient client;

        DeflateAnswer(IdleClient client) {
            this.client = client;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object message) {
            if (message instanceof HttpResponse response) {
                String extensions = response.headers().get(HttpHeaderNames.SEC_WEBSOCKET_EXTENSIONS);
                client.serverNoContext(extensions != null && extensions.contains("server_no_context_takeover"));
                ctx.pipeline().remove(this);
            }
            ctx.fireChannelRead(message);
        }
    }

    private void settle(IdleClient client) {
        if (settingUp.remove(client)) {
            setups.release();
        }
    }

    private void refusal(String reason) {
        refused.incrementAndGet();
        firstRefusal.compareAndSet(null, reason);
    }

    /**
     * Starts counting arrivals of the broadcast whose {@code data.id} is {@code id}; then
     * {@link #awaitBroadcast} waits for them.
     */
    @Override
    public void expectBroadcast(String id) {
        arrivals.set(0);
        lastArrivalNanos.set(0);
        expectedBroadcast = id;
    }

    /** Waits until every live client got the expected broadcast; returns the {@link System#nanoTime} of the last arrival, or -1 on timeout. */
    @Override
    public long awaitBroadcast(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (arrivals.get() < ready.get()) {
            if (System.nanoTime() > deadline) {
                return -1;
            }
            Thread.sleep(1);
        }
        return lastArrivalNanos.get();
    }

    @Override
    public int arrivals() {
        return arrivals.get();
    }

    /**
     * Every client disconnects (its connection closes on the reply); waits up to {@code timeout}
     * for all connections to close, then closes what is left. Returns the count closed by force.
     */
    @Override
    public int leaveAll(Duration timeout) throws InterruptedException {
        for (IdleClient client : live) {
            client.channelLoop().execute(client::leave);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!live.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(POLL_MILLIS);
        }
        int forced = live.size();
        for (IdleClient client : live) {
            client.channelLoop().execute(client::close);
        }
        long closeDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!live.isEmpty() && System.nanoTime() < closeDeadline) {
            Thread.sleep(POLL_MILLIS);
        }
        opened = 0;
        ready.set(0);
        return forced;
    }

    /** Clients ready now. */
    @Override
    public int ready() {
        return ready.get();
    }

    /** How many clients each source address had, by address. */
    @Override
    public Map<String, Integer> perSourceAddress() {
        Map<String, Integer> counts = new TreeMap<>();
        perSource.forEach((address, n) -> counts.put(address, n.get()));
        return counts;
    }

    /** The scheduling policy of each event loop's thread ({@link BatchScheduling#SCHED_BATCH} ...), each started if it was not. */
    List<Integer> loopPolicies() throws InterruptedException, ExecutionException {
        List<Integer> policies = new ArrayList<>();
        for (EventExecutor loop : group) {
            policies.add(loop.submit(BatchScheduling::policyOfThisThread).get());
        }
        return policies;
    }

    @Override
    public void close() {
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
    }

    @Override
    public String toString() {
        return "IdleClients[" + wsUrl + ", " + ready.get() + " ready, " + live.size() + " open, " + sourceAddresses.size()
                + " source addresses, deflate offered: " + offerDeflate + ", " + concurrency + " setting up at most]";
    }

    /** One listener for all clients: the counts and the set-up permits. */
    private final class Events implements IdleClient.Listener {
        @Override
        public void ready(IdleClient client) {
            ready.incrementAndGet();
            settle(client);
        }

        @Override
        public void broadcast(IdleClient client, String id) {
            if (expectedBroadcast != null && expectedBroadcast.equals(id)) {
                long now = System.nanoTime();
                lastArrivalNanos.accumulateAndGet(now, Math::max);
                arrivals.incrementAndGet();
            }
        }

        @Override
        public void refused(IdleClient client, String reason) {
            settle(client);
            refusal(reason);
        }

        @Override
        public void closed(IdleClient client) {
            live.remove(client);
            if (settingUp.contains(client)) {
                settle(client);
                refusal("connection closed while setting up");
            }
        }
    }
}
