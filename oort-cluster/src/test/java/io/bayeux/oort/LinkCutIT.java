package io.bayeux.oort;

import io.bayeux.client.BayeuxClient;
import io.bayeux.oort.seti.Seti;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;

import static io.bayeux.oort.OortTesting.SECRET;
import static io.bayeux.oort.OortTesting.await;
import static io.bayeux.oort.OortTesting.next;
import static io.bayeux.oort.OortTesting.publish;
import static io.bayeux.oort.OortTesting.subscribe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Links cut by a TCP proxy that drops bytes without closing anything: both nodes notice
 * within the failure timeout, whether both directions are cut or only one (half-open), and
 * the cloud heals by itself when the network returns.
 */
class LinkCutIT {
    private static final Duration FAILURE = Duration.ofSeconds(3);
    private final Closing closing = new Closing();

    @AfterEach
    void close() {
        closing.closeAll();
    }

    /** A node whose URL, as the other nodes dial it, goes through a proxy. */
    private record ProxiedNode(OortTesting.Node node, TcpProxy proxy, BlockingQueue<String> events, Seti seti) {
        Oort oort() {
            return node.oort();
        }

        String url() {
            return node.url();
        }

        String direct() {
            return node.server().uri().toString();
        }
    }

    private ProxiedNode node() throws Exception {
        NettyBayeuxServer server = NettyBayeuxServer.builder().host("127.0.0.1").port(0).build().start();
        TcpProxy proxy = new TcpProxy(server.port());
        Oort oort = new Oort(server.bayeux(), "http://127.0.0.1:" + proxy.port() + "/cometd");
        oort.setSecret(SECRET);
        oort.setFailureTimeout(FAILURE);
        oort.setMaxBackoff(Duration.ofSeconds(1));
        oort.observeChannel("/chat/**");
        BlockingQueue<String> events = new LinkedBlockingQueue<>();
        oort.addCometListener(new CometListener() {
            @Override
            public void cometJoined(Event event) {
                events.add("joined " + event.cometURL());
            }

            @Override
            public void cometLeft(Event event) {
                events.add("left " + event.cometURL());
            }
        });
        oort.start();
        Seti seti = new Seti(oort);
        seti.start();
        OortTesting.Node node = new OortTesting.Node(server, oort);
        closing.add(node);
        closing.add(seti::stop);
        closing.add(proxy);
        return new ProxiedNode(node, proxy, events, seti);
    }

    private BayeuxClient client(String url) throws InterruptedException {
        BayeuxClient client = OortTesting.client(url, "websocket");
        closing.add(client::disconnect);
        return client;
    }

    private static long awaitLeft(ProxiedNode node, ProxiedNode other, long since) throws InterruptedException {
        assertEquals("left " + other.url(), next(node.events()));
        return (System.nanoTime() - since) / 1_000_000;
    }

    private void assertDelivery(ProxiedNode from, ProxiedNode to, String text) throws InterruptedException {
        List<Object> received = new CopyOnWriteArrayList<>();
        BayeuxClient subscriber = client(to.direct());
        subscribe(subscriber, "/chat/room", (ch, m) -> received.add(m.getData()));
        BayeuxClient publisher = client(from.direct());
        publish(publisher, "/chat/room", Map.of("text", text));
        await(text + " delivered", () -> received.contains(Map.of("text", text)));
    }

    private void joinBoth(ProxiedNode a, ProxiedNode b) throws InterruptedException {
        assertEquals("joined " + b.url(), next(a.events()));
        assertEquals("joined " + a.url(), next(b.events()));
        await("the mesh", () -> a.oort().getKnownComets().equals(Set.of(b.url())) && b.oort().getKnownComets().equals(Set.of(a.url())));
    }

    @Test
    void aPartitionIsNoticedOnBothSidesAndHeals() throws Exception {
        ProxiedNode a = node();
        ProxiedNode b = node();
        a.oort().observeComet(b.url());
        joinBoth(a, b);
        BayeuxClient alice = client(a.direct());
        BayeuxClient bob = client(b.direct());
        a.seti().associate("alice", a.node().server().bayeux().getSession(alice.getId()));
        b.seti().associate("bob", b.node().server().bayeux().getSession(bob.getId()));
        await("users known on both sides", () -> a.seti().isPresent("bob") && b.seti().isPresent("alice"));

        long cut = System.nanoTime();
        a.proxy().cut();
        b.proxy().cut();
        long onA = awaitLeft(a, b, cut);
        long onB = awaitLeft(b, a, cut);
        System.out.printf("partition noticed after %d ms on A, %d ms on B (failure timeout %d ms)%n", onA, onB, FAILURE.toMillis());
        long bound = 3 * FAILURE.toMillis() + 10_000;
        assertTrue(onA < bound && onB < bound, () -> onA + " ms, " + onB + " ms");
        assertTrue(a.oort().getKnownComets().isEmpty());
        assertTrue(b.oort().getKnownComets().isEmpty());
        await("the other side's users removed", () -> !a.seti().isPresent("bob") && !b.seti().isPresent("alice"));
        // A user arriving during the partition is seen by the other side once it heals.
        BayeuxClient carol = client(b.direct());
        b.seti().associate("carol", b.node().server().bayeux().getSession(carol.getId()));

        a.proxy().heal();
        b.proxy().heal();
        joinBoth(a, b);
        await("users re-synced", () -> a.seti().getUserIds().equals(Set.of("alice", "bob", "carol"))
                && b.seti().getUserIds().equals(Set.of("alice", "bob", "carol")));
        assertDelivery(a, b, "after the partition, A to B");
        assertDelivery(b, a, "after the partition, B to A");
    }

    @Test
    void aHalfOpenLinkIsNoticedOnBothSidesAndHeals() throws Exception {
        ProxiedNode a = node();
        ProxiedNode b = node();
        a.oort().observeComet(b.url());
        joinBoth(a, b);

        // A's requests still reach B, B's answers to A are lost; B's own link to A is untouched.
        long cut = System.nanoTime();
        b.proxy().cutReplies();
        long onA = awaitLeft(a, b, cut);
        long onB = awaitLeft(b, a, cut);
        System.out.printf("half-open link noticed after %d ms on A, %d ms on B (failure timeout %d ms)%n", onA, onB, FAILURE.toMillis());
        long bound = 3 * FAILURE.toMillis() + 10_000;
        assertTrue(onA < bound && onB < bound, () -> onA + " ms, " + onB + " ms");
        // While it lasts, neither side pretends the other is there.
        Thread.sleep(FAILURE.toMillis());
        assertTrue(a.oort().getKnownComets().isEmpty(), () -> "A: " + a.oort().getKnownComets());
        assertTrue(b.oort().getKnownComets().isEmpty(), () -> "B: " + b.oort().getKnownComets());

        b.proxy().heal();
        joinBoth(a, b);
        assertDelivery(a, b, "after the half-open link, A to B");
        assertDelivery(b, a, "after the half-open link, B to A");
    }
}
