package io.bayeux.transport.internal.websocket;

import io.bayeux.api.server.ServerMessage;
import io.bayeux.server.internal.BayeuxServerImpl;
import io.bayeux.transport.NettyBayeuxServer;
import io.bayeux.transport.ServerSettings;
import io.bayeux.transport.internal.ConnectionTypes;
import io.bayeux.transport.internal.LoopOutbox;
import io.bayeux.transport.internal.http.BrowserCookie;
import io.bayeux.transport.internal.http.RequestContext;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameDecoder;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The frame handler of one upgraded connection, on an {@link EmbeddedChannel}: a text frame's
 * messages go to the core and its replies come back as text frames; a bad frame closes the
 * connection with the close code that says why. Everything runs on the test's thread.
 */
class WebSocketFrameHandlerTest {
    /** RSV1, as {@code WebSocketFrame.rsv()} holds it. */
    private static final int RSV1 = 0x4;
    private static final String HANDSHAKE = "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"websocket\"]}]";
    private BayeuxServerImpl bayeux;
    private EmbeddedChannel channel;
    /** Decodes what the handler writes, as a client would (unmasked frames, RSV1 allowed). */
    private EmbeddedChannel frames;
    private WebSocketEndpoint endpoint;

    @BeforeEach
    void connect() {
        connect(false);
    }

    /** Opens the channel, with permessage-deflate negotiated if {@code deflate}. */
    private void connect(boolean deflate) {
        if (channel != null) {
            stop();
        }
        ServerSettings settings = NettyBayeuxServer.builder().settings();
        bayeux = new BayeuxServerImpl(settings.bayeux(), Runnable::run).start();
        LoopOutbox.Registry outboxes = new LoopOutbox.Registry();
        WebSocketShared shared = new WebSocketShared(bayeux, settings, Runnable::run,
                new BrowserCookie(settings.browserCookieName(), settings.browserCookieSameSite()), outboxes);
        channel = new EmbeddedChannel();
        frames = new EmbeddedChannel(new WebSocket13FrameDecoder(WebSocketDecoderConfig.newBuilder()
                .expectMaskedFrames(false).allowExtensions(true).maxFramePayloadLength(1 << 24).build()));
        RequestContext context = RequestContext.ofUpgrade(channel, new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/cometd"),
                settings.path(), ConnectionTypes.WEBSOCKET);
        endpoint = new WebSocketEndpoint(channel, shared, "browser-1", false, context, outboxes.of(channel),
                deflate ? shared.deflationOf(channel.eventLoop()) : null, null);
        channel.pipeline().addLast(WebSocketFrameHandler.NAME, new WebSocketFrameHandler(endpoint));
    }

    @AfterEach
    void stop() {
        channel.finishAndReleaseAll();
        frames.finishAndReleaseAll();
        bayeux.stop();
    }

    private <T> T next(Class<T> type) {
        channel.runPendingTasks();
        Object out = channel.readOutbound();
        assertNotNull(out, "a frame out");
        // Frames go out encoded (no frame encoder stays in the pipeline): a client's decoder reads them.
        frames.writeInbound(assertInstanceOf(ByteBuf.class, out));
        Object frame = frames.readInbound();
        assertNotNull(frame, "a whole frame");
        return assertInstanceOf(type, frame);
    }

    private void assertClosedWith(WebSocketCloseStatus status) {
        CloseWebSocketFrame close = next(CloseWebSocketFrame.class);
        try {
            assertEquals(status.code(), close.statusCode(), close.reasonText());
        } finally {
            close.release();
        }
        assertFalse(channel.isOpen());
    }

    @Test
    void aTextFramesMessagesAreHandledAndTheRepliesComeBackInATextFrame() {
        channel.writeInbound(new TextWebSocketFrame(HANDSHAKE));

        TextWebSocketFrame reply = next(TextWebSocketFrame.class);
        try {
            String json = reply.text();
            assertTrue(json.startsWith("[") && json.contains("\"channel\":\"/meta/handshake\"") && json.contains("\"successful\":true"), json);
        } finally {
            reply.release();
        }
        assertEquals(1, bayeux.getSessions().size());
        assertTrue(channel.isOpen());
    }

    @Test
    void aPushToAClosedConnectionFailsWithoutAStackTraceOrTheChannelsText() {
        channel.close();
        List<Throwable> failures = new ArrayList<>();
        ServerMessage.Mutable message = bayeux.newMessage();
        message.setChannel("/chat/room");
        message.setData("late");
        endpoint.push(List.of(message), (failed, batch, failure) -> {
            assertEquals(List.of(message), batch);
            failures.add(failure);
        });
        assertEquals(1, failures.size(), "the push failed");
        assertEquals("WebSocket closed", failures.get(0).getMessage());
        assertEquals(0, failures.get(0).getStackTrace().length, "no stack trace filled for each closed connection");
    }

    @Test
    void aFragmentedTextMessageIsPutTogetherFirst() {
        int half = HANDSHAKE.length() / 2;
        channel.writeInbound(new TextWebSocketFrame(false, 0, HANDSHAKE.substring(0, half)));
        channel.writeInbound(new ContinuationWebSocketFrame(true, 0, HANDSHAKE.substring(half)));

        TextWebSocketFrame reply = next(TextWebSocketFrame.class);
        try {
            assertTrue(reply.text().contains("\"successful\":true"), reply.text());
        } finally {
            reply.release();
        }
    }

    private static byte[] deflate(byte[] message) {
        Deflater deflater = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
        deflater.setInput(message);
        deflater.finish();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] chunk = new byte[8192];
        while (!deflater.finished()) {
            out.write(chunk, 0, deflater.deflate(chunk));
        }
        deflater.end();
        return out.toByteArray();
    }

    private void assertHandshakeReply() {
        TextWebSocketFrame reply = next(TextWebSocketFrame.class);
        try {
            String text = reply.rsv() == RSV1 ? inflate(ByteBufUtil.getBytes(reply.content())) : reply.text();
            assertTrue(text.contains("\"successful\":true"), text);
        } finally {
            reply.release();
        }
    }

    /** A permessage-deflate payload inflated, its {@code 00 00 ff ff} put back. */
    private static String inflate(byte[] payload) {
        Inflater inflater = new Inflater(true);
        try {
            inflater.setInput(ByteBuffer.wrap(new byte[payload.length + 4]).put(payload).put(new byte[] {0, 0, (byte) 0xFF, (byte) 0xFF}).flip());
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] chunk = new byte[8192];
            int n;
            while ((n = inflater.inflate(chunk)) > 0) {
                out.write(chunk, 0, n);
            }
            return out.toString(StandardCharsets.UTF_8);
        } catch (DataFormatException x) {
            throw new AssertionError("the reply does not inflate", x);
        } finally {
            inflater.end();
        }
    }

    @Test
    void aDeflatedTextFrameIsInflatedAndHandled() {
        connect(true);
        channel.writeInbound(new TextWebSocketFrame(true, RSV1, Unpooled.wrappedBuffer(deflate(HANDSHAKE.getBytes(StandardCharsets.UTF_8)))));
        assertHandshakeReply();
    }

    @Test
    void aDeflatedFragmentedMessageIsInflatedWhole() {
        connect(true);
        byte[] deflated = deflate(HANDSHAKE.getBytes(StandardCharsets.UTF_8));
        int half = deflated.length / 2;
        channel.writeInbound(new TextWebSocketFrame(false, RSV1, Unpooled.wrappedBuffer(deflated, 0, half)));
        channel.writeInbound(new ContinuationWebSocketFrame(true, 0, Unpooled.wrappedBuffer(deflated, half, deflated.length - half)));
        assertHandshakeReply();
    }

    @Test
    void rsv1WithoutPermessageDeflateClosesTheConnectionWith1002() {
        channel.writeInbound(new TextWebSocketFrame(true, RSV1, Unpooled.wrappedBuffer(deflate(HANDSHAKE.getBytes(StandardCharsets.UTF_8)))));
        assertClosedWith(WebSocketCloseStatus.PROTOCOL_ERROR);
    }

    @Test
    void rsv1OnAContinuationOrAControlFrameClosesTheConnectionWith1002() {
        connect(true);
        channel.writeInbound(new TextWebSocketFrame(false, 0, "[{"));
        channel.writeInbound(new ContinuationWebSocketFrame(true, RSV1, "}]"));
        assertClosedWith(WebSocketCloseStatus.PROTOCOL_ERROR);
        connect(true);
        channel.writeInbound(new PingWebSocketFrame(true, RSV1, Unpooled.wrappedBuffer(new byte[]{7})));
        assertClosedWith(WebSocketCloseStatus.PROTOCOL_ERROR);
    }

    @Test
    void aDeflatedMessageThatInflatesPastTheMaximumClosesTheConnectionWith1009() {
        connect(true);
        byte[] bomb = deflate(new byte[ServerSettings.DEFAULT_MAX_MESSAGE_SIZE * 16]);
        assertTrue(bomb.length < 64 * 1024, "a bomb of " + bomb.length + " bytes");
        channel.writeInbound(new TextWebSocketFrame(true, RSV1, Unpooled.wrappedBuffer(bomb)));
        assertClosedWith(WebSocketCloseStatus.MESSAGE_TOO_BIG);
        assertTrue(bayeux.getSessions().isEmpty());
    }

    @Test
    void aDeflatedFrameThatIsNoDeflateDataClosesTheConnectionWith1007() {
        connect(true);
        channel.writeInbound(new TextWebSocketFrame(true, RSV1, Unpooled.wrappedBuffer(new byte[]{(byte) 0xFF, (byte) 0xFF, 1, 2})));
        assertClosedWith(WebSocketCloseStatus.INVALID_PAYLOAD_DATA);
    }

    @Test
    void aBinaryFrameClosesTheConnectionWith1003() {
        channel.writeInbound(new BinaryWebSocketFrame(Unpooled.wrappedBuffer(new byte[]{1, 2, 3})));
        assertClosedWith(WebSocketCloseStatus.INVALID_MESSAGE_TYPE);
    }

    @Test
    void aTextFrameThatIsNoJsonArrayClosesTheConnectionWith1002() {
        channel.writeInbound(new TextWebSocketFrame("{not json"));
        assertClosedWith(WebSocketCloseStatus.PROTOCOL_ERROR);
        assertTrue(bayeux.getSessions().isEmpty());
    }

    @Test
    void anEmptyBatchClosesTheConnectionWith1002() {
        channel.writeInbound(new TextWebSocketFrame("[]"));
        assertClosedWith(WebSocketCloseStatus.PROTOCOL_ERROR);
    }

    @Test
    void invalidUtf8ClosesTheConnectionWith1007() {
        channel.writeInbound(new TextWebSocketFrame(Unpooled.wrappedBuffer(new byte[]{'[', (byte) 0xC3, (byte) 0x28, ']'})));
        assertClosedWith(WebSocketCloseStatus.INVALID_PAYLOAD_DATA);
    }

    @Test
    void aPingIsAnsweredWithAPongOfTheSameData() {
        channel.writeInbound(new PingWebSocketFrame(Unpooled.wrappedBuffer(new byte[]{7})));
        PongWebSocketFrame pong = next(PongWebSocketFrame.class);
        try {
            assertEquals(7, pong.content().getByte(0));
        } finally {
            pong.release();
        }
        assertTrue(channel.isOpen());
    }
}
