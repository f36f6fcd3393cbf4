package io.bayeux.client.transport;

import io.bayeux.api.Message;
import io.bayeux.client.ClientConfig;
import io.bayeux.common.HashMapMessage;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshaker;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshakerFactory;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.zip.Deflater;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The WebSocket transport inflating what a server sends compressed, over real sockets, from a
 * scripted server that answers the permessage-deflate offer as told and writes the frames the
 * test makes: messages in several frames, a server that keeps context, and a bomb.
 */
class InflateDecoderIT {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String NO_CONTEXT = "permessage-deflate; server_no_context_takeover; client_no_context_takeover";
    private static final String CONTEXT = "permessage-deflate; client_no_context_takeover";

    private final List<EventLoopGroup> groups = new CopyOnWriteArrayList<>();
    private final List<ClientTransport> transports = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() throws InterruptedException {
        transports.forEach(ClientTransport::terminate);
        for (EventLoopGroup group : groups) {
            assertTrue(group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(WAIT.toMillis()), "event loops stopped");
        }
    }

    @Test
    void aMessageCompressedInSeveralFramesArrivesWholeBetweenWholeAndPlainOnes() throws Exception {
        ScriptedServer server = new ScriptedServer(NO_CONTEXT);
        Client client = new Client(server, group(1), 1 << 20);
        String first = chat("several frames", 200);
        String second = chat("one frame", 20);
        String third = chat("plain", 3);

        byte[] deflated = deflate(new Deflater(Deflater.DEFAULT_COMPRESSION, true), first);
        int part = deflated.length / 3;
        server.send(new TextWebSocketFrame(false, WebSocketExtension.RSV1, Unpooled.wrappedBuffer(deflated, 0, part)),
                new ContinuationWebSocketFrame(false, 0, Unpooled.wrappedBuffer(deflated, part, part)),
                new ContinuationWebSocketFrame(true, 0, Unpooled.wrappedBuffer(deflated, 2 * part, deflated.length - 2 * part)),
                compressed(new Deflater(Deflater.DEFAULT_COMPRESSION, true), second),
                new TextWebSocketFrame(frameText(third)));

        assertEquals(data(first), client.next());
        assertEquals(data(second), client.next());
        assertEquals(data(third), client.next());
    }

    @Test
    void aServerThatKeepsContextIsInflatedAgainstItsEarlierMessages() throws Exception {
        ScriptedServer server = new ScriptedServer(CONTEXT);
        Client client = new Client(server, group(1), 1 << 20);
        Deflater stream = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
        String first = chat("context", 40);
        String second = chat("context", 41);
        byte[] firstBytes = deflate(stream, first);
        byte[] secondBytes = deflate(stream, second);
        assertTrue(secondBytes.length * 4 < second.length(), () -> "the second refers to the first: " + secondBytes.length + " bytes");
        // The third in two frames, still in the same stream.
        byte[] thirdBytes = deflate(stream, first);
        server.send(new TextWebSocketFrame(true, WebSocketExtension.RSV1, Unpooled.wrappedBuffer(firstBytes)),
                new TextWebSocketFrame(true, WebSocketExtension.RSV1, Unpooled.wrappedBuffer(secondBytes)),
                new TextWebSocketFrame(false, WebSocketExtension.RSV1, Unpooled.wrappedBuffer(thirdBytes, 0, 1)),
                new ContinuationWebSocketFrame(true, 0, Unpooled.wrappedBuffer(thirdBytes, 1, thirdBytes.length - 1)));

        assertEquals(data(first), client.next());
        assertEquals(data(second), client.next());
        assertEquals(data(first), client.next());
    }

    @Test
    void aMessageThatInflatesPastTheLargestAllowedIsRefusedWith1009AndHarmsNoOtherConnection() throws Exception {
        EventLoopGroup group = group(1);
        ScriptedServer bombed = new ScriptedServer(NO_CONTEXT);
        Client victim = new Client(bombed, group, 64 * 1024);
        ScriptedServer other = new ScriptedServer(NO_CONTEXT);
        Client bystander = new Client(other, group, 64 * 1024);

        // 16 MiB of one letter deflates to some 16 KB: a frame well within the frame limit.
        byte[] letters = new byte[16 << 20];
        Arrays.fill(letters, (byte) 'a');
        Deflater deflater = new Deflater(Deflater.BEST_COMPRESSION, true);
        byte[] bomb = deflate(deflater, letters);
        assertTrue(bomb.length < 64 * 1024, () -> "the bomb fits a frame: " + bomb.length);
        bombed.send(new TextWebSocketFrame(true, WebSocketExtension.RSV1, Unpooled.wrappedBuffer(bomb)));

        Throwable failure = victim.failures.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertNotNull(failure, "the client told of the refused message");
        assertTrue(String.valueOf(failure.getMessage()).contains("inflates past"), failure::toString);
        CloseWebSocketFrame close = bombed.closes.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertNotNull(close, "the client closed the connection with a close frame");
        assertEquals(1009, close.statusCode());
        close.release();

        String text = chat("after the bomb", 20);
        other.send(compressed(new Deflater(Deflater.DEFAULT_COMPRESSION, true), text));
        assertEquals(data(text), bystander.next());
    }

    private EventLoopGroup group(int threads) {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(threads, NioIoHandler.newFactory());
        groups.add(group);
        return group;
    }

    /** A delivery on /chat whose text is {@code words} and a count, {@code times} over. */
    private static String chat(String words, int times) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < times; i++) {
            text.append(words).append(' ').append(i).append(", ");
        }
        return text.toString();
    }

    /** What a delivery of {@code text} carries, as the client decodes it. */
    private static Map<String, Object> data(String text) {
        return Map.of("text", text);
    }

    /** The frame the scripted server sends for {@code text}: one JSON array of one delivery. */
    private static String frameText(String text) {
        return "[{\"channel\":\"/chat\",\"data\":{\"text\":\"" + text + "\"}}]";
    }

    private static TextWebSocketFrame compressed(Deflater deflater, String text) {
        return new TextWebSocketFrame(true, WebSocketExtension.RSV1, Unpooled.wrappedBuffer(deflate(deflater, text)));
    }

    private static byte[] deflate(Deflater deflater, String text) {
        return deflate(deflater, frameText(text).getBytes(StandardCharsets.UTF_8));
    }

    /** {@code plain} through {@code deflater} with a sync flush, its last four bytes ({@code 00 00 ff ff}) left out. */
    private static byte[] deflate(Deflater deflater, byte[] plain) {
        deflater.setInput(plain);
        byte[] out = new byte[plain.length / 2 + 64];
        int length = 0;
        while (true) {
            length += deflater.deflate(out, length, out.length - length, Deflater.SYNC_FLUSH);
            if (length < out.length) {
                break;
            }
            out = Arrays.copyOf(out, out.length * 2);
        }
        return Arrays.copyOf(out, length - 4);
    }

    /** A WebSocket transport connected to {@code server}, its deliveries and failures in queues. */
    private final class Client implements ClientTransport.Listener {
        final BlockingQueue<List<Message.Mutable>> messages = new LinkedBlockingQueue<>();
        final BlockingQueue<Throwable> failures = new LinkedBlockingQueue<>();

        Client(ScriptedServer server, EventLoopGroup group, int maxMessageSize) throws InterruptedException {
            WebSocketTransport transport = new WebSocketTransport(ClientConfig.builder().maxMessageSize(maxMessageSize).build());
            transports.add(transport);
            transport.init(URI.create("http://127.0.0.1:" + server.port() + "/cometd"), new CookieJar(), group, this);
            HashMapMessage hello = new HashMapMessage();
            hello.setChannel("/meta/handshake");
            hello.setId("1");
            transport.send(List.of(hello));
            server.awaitConnection();
        }

        /** The data of the next message, the only one of its frame. */
        Object next() throws InterruptedException {
            List<Message.Mutable> next = messages.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertNotNull(next, "nothing arrived within " + WAIT + "; failures: " + failures);
            assertEquals(1, next.size(), next::toString);
            return next.get(0).getData();
        }

        @Override
        public void onMessages(List<Message.Mutable> received) {
            messages.add(received);
        }

        @Override
        public void onFailure(Throwable failure, List<Message.Mutable> lost) {
            failures.add(failure);
        }
    }

    /** A WebSocket server of one connection that answers the extension offer with {@code answer} and sends what it is given. */
    private final class ScriptedServer {
        final BlockingQueue<CloseWebSocketFrame> closes = new LinkedBlockingQueue<>();
        private final BlockingQueue<Channel> connections = new LinkedBlockingQueue<>();
        private final Channel listening;
        private Channel connection;

        ScriptedServer(String answer) throws InterruptedException {
            EventLoopGroup group = group(1);
            listening = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(64 * 1024), new Upgrade(answer));
                        }
                    }).bind("127.0.0.1", 0).sync().channel();
        }

        int port() {
            return ((InetSocketAddress) listening.localAddress()).getPort();
        }

        /** Waits for the client's first frame on the connection. */
        void awaitConnection() throws InterruptedException {
            connection = connections.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertNotNull(connection, "the client connected and sent its first message");
        }

        void send(WebSocketFrame... frames) {
            for (WebSocketFrame frame : frames) {
                connection.write(frame);
            }
            connection.flush();
        }

        private final class Upgrade extends SimpleChannelInboundHandler<Object> {
            private final String answer;
            private boolean first = true;

            Upgrade(String answer) {
                this.answer = answer;
            }

            @Override
            protected void channelRead0(ChannelHandlerContext ctx, Object msg) {
                if (msg instanceof FullHttpRequest request) {
                    WebSocketServerHandshaker handshaker = new WebSocketServerHandshakerFactory("ws://127.0.0.1/cometd", null, true, 1 << 20)
                            .newHandshaker(request);
                    handshaker.handshake(ctx.channel(), request, new DefaultHttpHeaders().set(HttpHeaderNames.SEC_WEBSOCKET_EXTENSIONS, answer),
                            ctx.newPromise());
                } else if (msg instanceof TextWebSocketFrame && first) {
                    first = false;
                    connections.add(ctx.channel());
                } else if (msg instanceof CloseWebSocketFrame close) {
                    closes.add(close.retain());
                }
            }
        }
    }
}
