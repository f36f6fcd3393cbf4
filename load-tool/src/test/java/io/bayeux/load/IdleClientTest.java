package io.bayeux.load;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.Deflater;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

class IdleClientTest {
    private static final int RSV1 = 0x4;
    private final List<String> broadcasts = new CopyOnWriteArrayList<>();
    private final List<String> refusals = new CopyOnWriteArrayList<>();
    private final IdleClient client = new IdleClient("/chat/all", List.of("/chat/all"), new IdleClient.Listener() {
        @Override
        public void ready(IdleClient client) {
        }

        @Override
        public void broadcast(IdleClient client, String id) {
            broadcasts.add(id);
        }

        @Override
        public void refused(IdleClient client, String reason) {
            refusals.add(reason);
        }

        @Override
        public void closed(IdleClient client) {
        }
    });
    private final EmbeddedChannel channel = new EmbeddedChannel(client);

    private static String broadcast(String id) {
        return "[{\"channel\":\"/chat/all\",\"data\":{\"text\":\"the same words again\",\"id\":\"" + id + "\"},\"id\":\"7\"}]";
    }

    /** {@code message} compressed by {@code deflater} as one permessage-deflate message, its 00 00 ff ff left out. */
    private static TextWebSocketFrame compressed(Deflater deflater, String message) {
        deflater.setInput(message.getBytes(StandardCharsets.UTF_8));
        byte[] out = new byte[1024];
        int n = deflater.deflate(out, 0, out.length, Deflater.SYNC_FLUSH);
        return new TextWebSocketFrame(true, RSV1, Unpooled.wrappedBuffer(Arrays.copyOf(out, n - 4)));
    }

    @Test
    void messagesCompressedWithContextInflateWithTheConnectionsOwnInflater() {
        client.serverNoContext(false);
        Deflater deflater = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
        channel.writeInbound(compressed(deflater, broadcast("b1")));
        channel.writeInbound(compressed(deflater, broadcast("b2")));
        channel.writeInbound(new TextWebSocketFrame(broadcast("b3")));

        assertEquals(List.of("b1", "b2", "b3"), broadcasts);
        deflater.end();
    }

    @Test
    void messagesCompressedWithoutContextShareTheLoopsInflater() {
        client.serverNoContext(true);
        for (String id : List.of("b1", "b2", "b3")) {
            Deflater deflater = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
            channel.writeInbound(compressed(deflater, broadcast(id)));
            deflater.end();
        }

        assertEquals(List.of("b1", "b2", "b3"), broadcasts);
    }

    @Test
    void aMessageThatRefersToAnEarlierOneCannotBeReadWithoutContext() {
        // The check that the two cases differ: a server that keeps context, taken for one that does not.
        client.serverNoContext(true);
        Deflater deflater = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
        channel.writeInbound(compressed(deflater, broadcast("b1")));
        channel.writeInbound(compressed(deflater, broadcast("b2")));

        assertEquals(List.of("b1"), broadcasts);
        assertFalse(channel.isOpen(), "a frame that does not inflate closes the connection");
        deflater.end();
    }

    @Test
    void aRefusalSaysWhichChannelAndWhy() {
        channel.writeInbound(new TextWebSocketFrame("[{\"channel\":\"/meta/handshake\",\"successful\":false,\"error\":\"403::denied\"}]"));

        assertEquals(List.of("/meta/handshake refused: 403::denied"), refusals);
    }
}
