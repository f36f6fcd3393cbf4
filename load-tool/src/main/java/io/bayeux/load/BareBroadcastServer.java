package io.bayeux.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.ChannelGroupFuture;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.ScheduledFuture;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * The floor under the chat benchmark: Netty and Jackson doing only what a delivery cannot do
 * without, and nothing a server is for. It answers the Bayeux messages the load tool's clients
 * send (handshake, connect, subscribe, unsubscribe, disconnect, publish) and
 * {@code /service/load/stats}, over WebSocket and long-polling; a message published to any
 * other channel is answered {@code successful} and encoded once.
 *
 * <p>Over WebSocket that one buffer is written and flushed to every connection subscribed to the
 * channel (Netty's {@link ChannelGroup#writeAndFlush}), one frame each, from the publisher's event
 * loop; a connect is held for 20 s. Over long-polling a client's held connect is answered as soon
 * as a message comes for it, with the messages that came while it had none held (no gathering,
 * no batching beyond that); each reply is a whole response written and flushed at once.
 *
 * <p>It has no sessions beyond what these need (a clientId is not checked on WebSocket), no
 * bound on a client's queue, no extensions, wildcards, compression, security, expiry or
 * back-pressure: a yardstick for {@code compare}, not a server. One event loop per core, as this
 * project's server has.
 */
final class BareBroadcastServer implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long HOLD_MILLIS = 20_000;
    private static final int MAX_MESSAGE = 64 * 1024;

    private final EventLoopGroup loops;
    /** Each room's WebSocket subscribers. */
    private final Map<String, ChannelGroup> rooms = new ConcurrentHashMap<>();
    /** Each room's long-polling subscribers. */
    private final Map<String, Set<PollClient>> pollRooms = new ConcurrentHashMap<>();
    private final Map<String, PollClient> pollClients = new ConcurrentHashMap<>();
    private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private final LongAdder frames = new LongAdder();
    private final LongAdder responses = new LongAdder();
    /** Whether each broadcast's arrival and the end of its last write are kept for the stats, as {@link DeliveryTiming} does. */
    private final boolean timing;
    private volatile long newestArrivalNanos;
    private volatile long lastFlushNanos;
    private Channel listener;

    /**
     * @param ioThreads event loops, 0 for one per core
     * @param timing    whether the stats tell the last WebSocket broadcast's arrival and the end of its last
     *                  write ({@code deliveryNewestArrivalNanos}, {@code deliveryLastFlushNanos}), for the density mode
     */
    BareBroadcastServer(int ioThreads, boolean timing) {
        this.timing = timing;
        int threads = ioThreads > 0 ? ioThreads : Runtime.getRuntime().availableProcessors();
        loops = new MultiThreadIoEventLoopGroup(threads, Epoll.isAvailable() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
    }

    BareBroadcastServer start(String host, int port) throws InterruptedException {
        listener = new ServerBootstrap()
                .group(loops)
                .channel(Epoll.isAvailable() ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 4096)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(MAX_MESSAGE), new Polls(),
                                new WebSocketServerProtocolHandler(WebSocketServerProtocolConfig.newBuilder()
                                        .websocketPath("/cometd").checkStartsWith(true).maxFramePayloadLength(MAX_MESSAGE).build()),
                                new WebSocketFrameAggregator(MAX_MESSAGE), new Connection());
                    }
                })
                .bind(host, port).sync().channel();
        return this;
    }

    URI uri() {
        InetSocketAddress address = (InetSocketAddress) listener.localAddress();
        return URI.create("http://" + address.getHostString() + ":" + address.getPort() + "/cometd");
    }

    @Override
    public void close() {
        if (listener != null) {
            listener.close().syncUninterruptibly();
        }
        connections.close().awaitUninterruptibly();
        loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** The figures the load tool asks for on {@code /service/load/stats}, the same names as this project's server gives. */
    private Map<String, Object> stats() {
        Map<String, Object> stats = StatsService.processFigures();
        stats.put("sessions", (long) connections.size() + pollClients.size());
        long queued = 0;
        for (PollClient client : pollClients.values()) {
            queued += client.queued();
        }
        stats.put("queued", queued);
        stats.put("channels", rooms.values().stream().filter(room -> !room.isEmpty()).count()
                + pollRooms.values().stream().filter(room -> !room.isEmpty()).count());
        long written = frames.sum();
        stats.put("framesWritten", written);
        stats.put("flushes", written + responses.sum());
        stats.put("queueOverflows", 0L);
        if (timing) {
            stats.put("deliveryNewestArrivalNanos", newestArrivalNanos);
            stats.put("deliveryLastFlushNanos", lastFlushNanos);
        }
        return stats;
    }

    /**
     * Fills in {@code reply} to a message both transports answer alike (handshake, subscribe,
     * unsubscribe, stats, publish); returns false, leaving it, for a connect, which each
     * transport answers its own way.
     */
    private boolean handle(JsonNode message, ObjectNode reply, Consumer<String> subscribe, Consumer<String> unsubscribe, String transport) {
        String channel = reply.get("channel").asText();
        switch (channel) {
            case "/meta/handshake" -> {
                reply.put("version", "1.0").put("successful", true);
                reply.putArray("supportedConnectionTypes").add(transport);
                advice(reply, 0);
            }
            case "/meta/connect" -> {
                return false;
            }
            case "/meta/subscribe", "/meta/unsubscribe" -> {
                JsonNode subscription = message.path("subscription");
                for (JsonNode each : subscription.isArray() ? subscription : JSON.createArrayNode().add(subscription)) {
                    (channel.equals("/meta/subscribe") ? subscribe : unsubscribe).accept(each.asText());
                }
                reply.set("subscription", subscription);
                reply.put("successful", true);
            }
            case "/service/load/stats" -> reply.put("successful", true).set("data", JSON.valueToTree(stats()));
            default -> {
                reply.put("successful", true);
                if (!channel.startsWith("/meta/") && !channel.startsWith("/service/")) {
                    broadcast(channel, message);
                }
            }
        }
        return true;
    }

    /** Encodes the message once for each transport, and hands it to every subscriber. */
    private void broadcast(String channel, JsonNode message) {
        ChannelGroup room = rooms.get(channel);
        Set<PollClient> polling = pollRooms.isEmpty() ? null : pollRooms.get(channel);
        boolean framed = room != null && !room.isEmpty();
        if (!framed && (polling == null || polling.isEmpty())) {
            return;
        }
        long arrival = System.nanoTime();
        ObjectNode delivery = JSON.createObjectNode().put("channel", channel);
        delivery.set("data", message.get("data"));
        if (framed) {
            ByteBuf bytes = encode(JSON.createArrayNode().add(delivery));
            frames.add(room.size());
            ChannelGroupFuture written = room.writeAndFlush(new TextWebSocketFrame(bytes));
            if (timing) {
                written.addListener(done -> {
                    lastFlushNanos = System.nanoTime();
                    newestArrivalNanos = arrival;
                });
            }
        }
        if (polling != null && !polling.isEmpty()) {
            byte[] once;
            try {
                once = JSON.writeValueAsBytes(delivery);
            } catch (IOException x) {
                throw new UncheckedIOException(x);
            }
            for (PollClient client : polling) {
                client.deliver(once);
            }
        }
    }

    private static ObjectNode replyTo(JsonNode message) {
        ObjectNode reply = JSON.createObjectNode().put("channel", message.path("channel").asText());
        if (message.has("id")) {
            reply.set("id", message.get("id"));
        }
        return reply;
    }

    private static JsonNode read(ByteBuf content) throws IOException {
        JsonNode batch;
        try (ByteBufInputStream in = new ByteBufInputStream(content)) {
            batch = JSON.readTree((InputStream) in);
        }
        return batch.isArray() ? batch : JSON.createArrayNode().add(batch);
    }

    /** One WebSocket connection: its meta messages, its publishes, its held connect. */
    private final class Connection extends SimpleChannelInboundHandler<TextWebSocketFrame> {
        private boolean connected;
        private ObjectNode heldConnect;
        private ScheduledFuture<?> holdEnd;
        private Consumer<String> subscribe;
        private Consumer<String> unsubscribe;

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            Channel channel = ctx.channel();
            subscribe = name -> rooms.computeIfAbsent(name, each -> new DefaultChannelGroup(each, GlobalEventExecutor.INSTANCE)).add(channel);
            unsubscribe = name -> {
                ChannelGroup room = rooms.get(name);
                if (room != null) {
                    room.remove(channel);
                }
            };
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
            if (event instanceof WebSocketServerProtocolHandler.HandshakeComplete) {
                connections.add(ctx.channel());
                ctx.pipeline().remove(Polls.class);
            }
            super.userEventTriggered(ctx, event);
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, TextWebSocketFrame frame) throws IOException {
            ArrayNode replies = JSON.createArrayNode();
            for (JsonNode message : read(frame.content())) {
                ObjectNode reply = replyTo(message);
                String channel = reply.get("channel").asText();
                if (channel.equals("/meta/handshake")) {
                    reply.put("clientId", UUID.randomUUID().toString());
                } else if (channel.equals("/meta/disconnect")) {
                    answerHeldConnect(ctx);
                    reply.put("successful", true);
                    replies.add(reply);
                    continue;
                }
                if (!handle(message, reply, subscribe, unsubscribe, "websocket")) {
                    answerHeldConnect(ctx);
                    reply.put("clientId", message.path("clientId").asText()).put("successful", true);
                    if (connected && message.path("advice").path("timeout").asLong(-1) != 0) {
                        // Held until the timeout: nothing else ends it here (no queue to drain).
                        heldConnect = reply;
                        holdEnd = ctx.executor().schedule(() -> answerHeldConnect(ctx), HOLD_MILLIS, TimeUnit.MILLISECONDS);
                        continue;
                    }
                    connected = true;
                    advice(reply, HOLD_MILLIS);
                }
                replies.add(reply);
            }
            if (!replies.isEmpty()) {
                writeFrame(ctx.channel(), replies);
            }
        }

        private void answerHeldConnect(ChannelHandlerContext ctx) {
            if (holdEnd != null) {
                holdEnd.cancel(false);
                holdEnd = null;
            }
            if (heldConnect != null) {
                ObjectNode reply = heldConnect;
                heldConnect = null;
                advice(reply, HOLD_MILLIS);
                writeFrame(ctx.channel(), JSON.createArrayNode().add(reply));
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            if (holdEnd != null) {
                holdEnd.cancel(false);
            }
            super.channelInactive(ctx);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    /** Long-polling: a POST to the Bayeux path is a batch of messages, answered with one response. */
    private final class Polls extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
            if (!(msg instanceof FullHttpRequest request) || !HttpMethod.POST.equals(request.method())) {
                ctx.fireChannelRead(msg);
                return;
            }
            try {
                poll(ctx, request);
            } finally {
                request.release();
            }
        }

        private void poll(ChannelHandlerContext ctx, FullHttpRequest request) throws IOException {
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            ArrayNode replies = JSON.createArrayNode();
            PollClient holding = null;
            for (JsonNode message : read(request.content())) {
                ObjectNode reply = replyTo(message);
                String channel = reply.get("channel").asText();
                PollClient client = channel.equals("/meta/handshake") ? null : pollClients.get(message.path("clientId").asText());
                if (channel.equals("/meta/handshake")) {
                    client = new PollClient(UUID.randomUUID().toString());
                    pollClients.put(client.id, client);
                    reply.put("clientId", client.id);
                } else if (client == null) {
                    reply.put("successful", false).put("error", "402::session_unknown");
                    reply.putObject("advice").put("reconnect", "handshake").put("interval", 0);
                    replies.add(reply);
                    continue;
                } else if (channel.equals("/meta/disconnect")) {
                    pollClients.remove(client.id);
                    for (Set<PollClient> room : pollRooms.values()) {
                        room.remove(client);
                    }
                    client.leave();
                    reply.put("successful", true);
                    replies.add(reply);
                    continue;
                }
                PollClient subscriber = client;
                if (!handle(message, reply, name -> pollRooms.computeIfAbsent(name, each -> ConcurrentHashMap.newKeySet()).add(subscriber),
                        name -> {
                            Set<PollClient> room = pollRooms.get(name);
                            if (room != null) {
                                room.remove(subscriber);
                            }
                        }, "long-polling")) {
                    reply.put("clientId", client.id).put("successful", true);
                    advice(reply, HOLD_MILLIS);
                    if (client.connected && message.path("advice").path("timeout").asLong(-1) != 0) {
                        holding = client;
                    }
                    client.connected = true;
                }
                replies.add(reply);
            }
            if (holding != null) {
                holding.hold(ctx, replies, keepAlive);
            } else {
                respond(ctx.channel(), List.of(), replies, keepAlive);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    /** A long-polling client: its held connect, or the messages that came while it had none. */
    private final class PollClient {
        final String id;
        /** Whether a connect was answered: the next ones are held. */
        volatile boolean connected;
        private final List<byte[]> queue = new ArrayList<>();
        private Held held;

        PollClient(String id) {
            this.id = id;
        }

        /** The connect that ends {@code replies} is answered now if messages wait, else when one comes or the hold ends. */
        void hold(ChannelHandlerContext ctx, ArrayNode replies, boolean keepAlive) {
            List<byte[]> waiting;
            Held previous;
            synchronized (this) {
                previous = held;
                held = null;
                waiting = drain();
                if (waiting.isEmpty()) {
                    Held now = new Held(ctx.channel(), replies, keepAlive);
                    held = now;
                    now.end = ctx.executor().schedule(() -> timeOut(now), HOLD_MILLIS, TimeUnit.MILLISECONDS);
                }
            }
            if (previous != null) {
                previous.answer(List.of());
            }
            if (!waiting.isEmpty()) {
                respond(ctx.channel(), waiting, replies, keepAlive);
            }
        }

        void deliver(byte[] message) {
            Held answer;
            List<byte[]> messages;
            synchronized (this) {
                queue.add(message);
                answer = held;
                if (answer == null) {
                    return;
                }
                held = null;
                messages = drain();
            }
            answer.answer(messages);
        }

        void leave() {
            Held answer;
            synchronized (this) {
                answer = held;
                held = null;
                queue.clear();
            }
            if (answer != null) {
                answer.answer(List.of());
            }
        }

        synchronized int queued() {
            return queue.size();
        }

        private void timeOut(Held which) {
            synchronized (this) {
                if (held != which) {
                    return;
                }
                held = null;
            }
            which.answer(List.of());
        }

        private List<byte[]> drain() {
            if (queue.isEmpty()) {
                return List.of();
            }
            List<byte[]> messages = new ArrayList<>(queue);
            queue.clear();
            return messages;
        }
    }

    /** A held connect: the request's replies (the connect's last), to answer with the messages that come. */
    private final class Held {
        final Channel channel;
        final ArrayNode replies;
        final boolean keepAlive;
        ScheduledFuture<?> end;

        Held(Channel channel, ArrayNode replies, boolean keepAlive) {
            this.channel = channel;
            this.replies = replies;
            this.keepAlive = keepAlive;
        }

        void answer(List<byte[]> messages) {
            if (end != null) {
                end.cancel(false);
            }
            respond(channel, messages, replies, keepAlive);
        }
    }

    /** One response: the messages, then the replies, in one JSON array. */
    private void respond(Channel channel, List<byte[]> messages, ArrayNode replies, boolean keepAlive) {
        ByteBuf body = PooledByteBufAllocator.DEFAULT.buffer(256);
        body.writeByte('[');
        for (byte[] message : messages) {
            body.writeBytes(message).writeByte(',');
        }
        int repliesAt = body.writerIndex();
        try (ByteBufOutputStream out = new ByteBufOutputStream(body)) {
            JSON.writeValue((OutputStream) out, replies);
        } catch (IOException x) {
            body.release();
            throw new UncheckedIOException(x);
        }
        // The replies' array opens nothing (the response's array holds them); its end closes the whole.
        body.setByte(repliesAt, ' ');
        if (replies.isEmpty() && !messages.isEmpty()) {
            body.setByte(repliesAt - 1, ' ');
        }
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, body);
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json;charset=UTF-8");
        HttpUtil.setContentLength(response, body.readableBytes());
        HttpUtil.setKeepAlive(response, keepAlive);
        responses.increment();
        channel.writeAndFlush(response).addListener(keepAlive ? ChannelFutureListener.CLOSE_ON_FAILURE : ChannelFutureListener.CLOSE);
    }

    private static void advice(ObjectNode reply, long timeout) {
        reply.putObject("advice").put("reconnect", "retry").put("interval", 0).put("timeout", timeout);
    }

    private void writeFrame(Channel channel, ArrayNode replies) {
        frames.increment();
        channel.writeAndFlush(new TextWebSocketFrame(encode(replies)));
    }

    private static ByteBuf encode(JsonNode json) {
        ByteBuf bytes = PooledByteBufAllocator.DEFAULT.buffer(256);
        try (ByteBufOutputStream out = new ByteBufOutputStream(bytes)) {
            JSON.writeValue((OutputStream) out, json);
        } catch (IOException x) {
            bytes.release();
            throw new UncheckedIOException(x);
        }
        return bytes;
    }
}
