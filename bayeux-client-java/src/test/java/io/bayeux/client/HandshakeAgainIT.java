package io.bayeux.client;

import io.bayeux.api.Channel;
import io.bayeux.api.Message;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.SecurityPolicy;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

import static io.bayeux.client.Clients.WAIT;
import static io.bayeux.client.Clients.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A handshake the application starts from the callback of a refused one, on the client's own
 * thread, as a page does that fetches a token once refused: the connection the refusal closed
 * must not take the new handshake down with it.
 */
class HandshakeAgainIT {
    @RegisterExtension
    final ServerAndClients fixture = new ServerAndClients();
    /** One event loop: the client and its connections share its thread, so the old connection closes after the callback returns. */
    private final ClientConfig config = ClientConfig.builder().eventLoopGroup(fixture.eventLoopGroup(1)).build();

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void aHandshakeFromTheCallbackOfARefusedOneGetsItsReply(String transport) throws Exception {
        AtomicInteger handshakes = new AtomicInteger();
        fixture.start().bayeux().setSecurityPolicy(new SecurityPolicy() {
            /** Every other handshake is refused, the first among them. */
            @Override
            public boolean canHandshake(BayeuxServer bayeux, ServerSession session, ServerMessage message) {
                return handshakes.incrementAndGet() % 2 == 0;
            }
        });
        // Several times: each client's first connection is the one refused.
        for (int i = 0; i < 10; i++) {
            BayeuxClient client = fixture.client(transport, config);
            BlockingQueue<Message> replies = new LinkedBlockingQueue<>();
            client.handshake(null, refused -> {
                replies.add(refused);
                client.handshake(null, replies::add);
            });

            Message refused = next(replies);
            assertEquals(Channel.META_HANDSHAKE, refused.getChannel());
            assertFalse(refused.isSuccessful(), refused::toString);
            Message accepted = next(replies);
            assertTrue(accepted.isSuccessful(), () -> "the second handshake's reply: " + accepted);
            assertTrue(client.waitFor(WAIT, BayeuxClient.State.CONNECTED), client::toString);
            assertEquals(transport, client.getTransportName());
            client.disconnect();
            assertTrue(client.waitFor(WAIT, BayeuxClient.State.DISCONNECTED), client::toString);
        }
    }
}
