package io.bayeux.auth.jwt;

import io.bayeux.api.client.ClientSessionChannel;
import io.bayeux.client.BayeuxClient;
import io.bayeux.client.ClientConfig;
import io.bayeux.client.ext.TokenExtension;
import io.bayeux.oort.Oort;
import io.bayeux.oort.seti.Seti;
import io.bayeux.testing.Await;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;

import static io.bayeux.auth.jwt.Clients.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two Oort nodes with token authentication and Seti: a user authenticated on one node is
 * present on both, and {@code sendMessage(userId, ...)} from the other node reaches it. The
 * nodes' own links handshake with the Oort secret, not a token.
 */
class PresenceAcrossNodesIT {
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    private record Node(NettyBayeuxServer server, JwtAuthentication authentication, Oort oort, Seti seti) {
    }

    private Node node() {
        JwtConfig config = JwtConfig.builder().hmacSecret(Tokens.SECRET).build();
        JwtAuthentication[] installed = new JwtAuthentication[1];
        NettyBayeuxServer server = NettyBayeuxServer.builder().host("127.0.0.1").port(0)
                .service(bayeux -> installed[0] = JwtAuthentication.install(bayeux, config)).build().start();
        closing.add(server::stop);
        closing.add(installed[0]);
        // Started after the policy is installed: the Oort wraps it, deciding its nodes' handshakes itself.
        Oort oort = new Oort(server.bayeux(), server.uri().toString());
        oort.setSecret("nodes' secret");
        oort.start();
        closing.add(oort::stop);
        Seti seti = new Seti(oort);
        seti.start();
        closing.add(seti::stop);
        installed[0].associateUsers(seti);
        return new Node(server, installed[0], oort, seti);
    }

    private BayeuxClient user(Node node, String userId, BlockingQueue<Object> received) throws InterruptedException {
        ClientConfig config = ClientConfig.builder().build();
        BayeuxClient client = Clients.client(node.server().uri(), "websocket", config);
        closing.add(client::close);
        client.addExtension(new TokenExtension(Tokens.hs256(Tokens.claims(userId, Instant.now()).build()), CompletableFuture::new));
        client.getChannel("/private").addListener((ClientSessionChannel.MessageListener) (channel, message) -> received.add(message.getData()));
        assertTrue(Clients.handshake(client).isSuccessful());
        assertTrue(client.waitFor(Clients.WAIT, BayeuxClient.State.CONNECTED), client::toString);
        return client;
    }

    @Test
    void aMessageToAUserReachesItOnTheNodeItAuthenticatedOn() throws Exception {
        Node a = node();
        Node b = node();
        b.oort().observeComet(a.oort().getURL());
        Await.until(WAIT, () -> a.oort().getKnownComets().equals(Set.of(b.oort().getURL()))
                && b.oort().getKnownComets().equals(Set.of(a.oort().getURL())), () -> "no mesh");

        BlockingQueue<Object> alice = new LinkedBlockingQueue<>();
        user(a, "alice", alice);
        assertTrue(a.seti().isAssociated("alice"));
        Await.until(WAIT, () -> b.seti().isPresent("alice"), () -> "alice not present on B");

        b.seti().sendMessage("alice", "/private", Map.of("text", "hi from B"));
        assertEquals(Map.of("text", "hi from B"), next(alice));
    }
}
