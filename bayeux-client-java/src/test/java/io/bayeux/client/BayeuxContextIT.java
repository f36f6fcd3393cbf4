package io.bayeux.client;

import io.bayeux.api.Message;
import io.bayeux.api.server.BayeuxContext;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.SecurityPolicy;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Predicate;

import static io.bayeux.client.Clients.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Java client authenticates to a server whose {@link SecurityPolicy} reads the
 * {@link BayeuxContext}: a bearer token in a header ({@link ClientConfig.Builder#header}) or a
 * cookie ({@link BayeuxClient#putCookie}), over each transport.
 */
class BayeuxContextIT {
    private NettyBayeuxServer server;
    private BayeuxClient client;
    /** The remote address each sessionAdded read from the server's current context. */
    private final BlockingQueue<String> addedFrom = new LinkedBlockingQueue<>();

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        server.stop();
    }

    private void start(Predicate<BayeuxContext> check) {
        server = NettyBayeuxServer.builder().port(0).service(bayeux -> {
            bayeux.setSecurityPolicy(new SecurityPolicy() {
                @Override
                public boolean canHandshake(BayeuxServer b, ServerSession session, ServerMessage message) {
                    return check.test(message.getBayeuxContext());
                }
            });
            bayeux.addListener(new BayeuxServer.SessionListener() {
                @Override
                public void sessionAdded(ServerSession session, ServerMessage message) {
                    addedFrom.add(bayeux.getContext().getRemoteAddress().getAddress().getHostAddress()
                            + " over " + bayeux.getContext().getTransportName());
                }

                @Override
                public void sessionRemoved(ServerSession session, ServerMessage message, boolean timeout) {
                }
            });
        }).build().start();
    }

    private Message handshake(String transport, ClientConfig config, String cookie) throws InterruptedException {
        client = Clients.client(server.uri(), config, Clients.transport(transport, config));
        if (cookie != null) {
            client.putCookie("token", cookie);
        }
        BlockingQueue<Message> reply = new LinkedBlockingQueue<>();
        client.handshake(null, reply::add);
        return next(reply);
    }

    private void assertRefused(Message reply) throws InterruptedException {
        assertFalse(reply.isSuccessful(), reply::toString);
        assertEquals("403::handshake_denied", reply.get(Message.ERROR_FIELD));
        assertTrue(client.waitFor(Clients.WAIT, BayeuxClient.State.DISCONNECTED), () -> "still trying: " + client);
        client.close();
        client = null;
    }

    @ParameterizedTest
    @ValueSource(strings = {"long-polling", "websocket"})
    void aBearerTokenHeaderAuthenticatesTheClient(String transport) throws Exception {
        start(context -> "Bearer s3cret".equals(context.getHeader("Authorization")));

        assertRefused(handshake(transport, ClientConfig.builder().header("Authorization", "Bearer wrong").build(), null));
        assertRefused(handshake(transport, ClientConfig.builder().build(), null));
        Message accepted = handshake(transport, ClientConfig.builder().header("Authorization", "Bearer s3cret").build(), null);

        assertTrue(accepted.isSuccessful(), accepted::toString);
        assertTrue(client.waitFor(Clients.WAIT, BayeuxClient.State.CONNECTED), () -> "not connected: " + client);
        assertEquals(transport, client.getTransportName());
        assertEquals("127.0.0.1 over " + transport, next(addedFrom));
    }

    @ParameterizedTest
    @ValueSource(strings = {"long-polling", "websocket"})
    void aTokenCookieAuthenticatesTheClient(String transport) throws Exception {
        start(context -> "s3cret".equals(context.getCookie("token")));

        assertRefused(handshake(transport, ClientConfig.builder().build(), "wrong"));
        Message accepted = handshake(transport, ClientConfig.builder().build(), "s3cret");

        assertTrue(accepted.isSuccessful(), accepted::toString);
        assertTrue(client.waitFor(Clients.WAIT, BayeuxClient.State.CONNECTED), () -> "not connected: " + client);
    }
}
