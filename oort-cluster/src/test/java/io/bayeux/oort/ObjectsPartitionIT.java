package io.bayeux.oort;

import io.bayeux.oort.object.Info;
import io.bayeux.oort.object.OortLong;
import io.bayeux.oort.object.OortMap;
import io.bayeux.oort.object.OortObject;
import io.bayeux.oort.object.OortStringMap;
import io.bayeux.oort.service.OortService;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.bayeux.oort.OortTesting.SECRET;
import static io.bayeux.oort.OortTesting.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Oort objects across a partition made by TCP proxies that drop bytes without closing
 * anything: each side removes the other's parts (and tells its listeners), keeps changing its
 * own, and both re-sync once the network returns.
 */
class ObjectsPartitionIT {
    private static final Duration FAILURE = Duration.ofSeconds(3);
    private final Closing closing = new Closing();

    @AfterEach
    void close() {
        closing.closeAll();
    }

    private record ProxiedNode(OortTesting.Node node, TcpProxy proxy, OortStringMap<Object> map, OortLong counter) {
        Oort oort() {
            return node.oort();
        }

        String url() {
            return node.url();
        }
    }

    private ProxiedNode node() throws Exception {
        NettyBayeuxServer server = NettyBayeuxServer.builder().host("127.0.0.1").port(0).build().start();
        TcpProxy proxy = new TcpProxy(server.port());
        Oort oort = new Oort(server.bayeux(), "http://127.0.0.1:" + proxy.port() + "/cometd");
        oort.setSecret(SECRET);
        oort.setFailureTimeout(FAILURE);
        oort.setMaxBackoff(Duration.ofSeconds(1));
        oort.start();
        OortTesting.Node node = new OortTesting.Node(server, oort);
        closing.add(node);
        closing.add(proxy);
        OortStringMap<Object> map = new OortStringMap<>(oort, "rooms");
        map.start();
        closing.add(map::stop);
        OortLong counter = new OortLong(oort, "count");
        counter.start();
        closing.add(counter::stop);
        return new ProxiedNode(node, proxy, map, counter);
    }

    private static boolean holds(OortObject<?> object, String url, Object value) {
        Info<?> info = object.getInfo(url);
        return info != null && info.getObject().equals(value);
    }

    @Test
    void aPartitionRemovesTheOtherSidesPartsAndHealingReSyncsThem() throws Exception {
        ProxiedNode a = node();
        ProxiedNode b = node();
        List<String> removedOnA = new CopyOnWriteArrayList<>();
        a.map().addListener(new OortObject.Listener<>() {
            @Override
            public void onRemoved(Info<Map<String, Object>> info) {
                removedOnA.add(info.getOortURL());
            }
        });
        List<String> entriesOnA = new CopyOnWriteArrayList<>();
        a.map().addEntryListener(new OortMap.EntryListener<>() {
            @Override
            public void onPut(Info<Map<String, Object>> info, OortMap.Entry<String, Object> entry) {
                if (info.getOortURL().equals(b.url())) {
                    entriesOnA.add("put " + entry.key());
                }
            }

            @Override
            public void onRemoved(Info<Map<String, Object>> info, OortMap.Entry<String, Object> entry) {
                if (info.getOortURL().equals(b.url())) {
                    entriesOnA.add("removed " + entry.key());
                }
            }
        });
        a.oort().observeComet(b.url());
        await("the mesh", () -> a.oort().getKnownComets().equals(Set.of(b.url())) && b.oort().getKnownComets().equals(Set.of(a.url())));
        a.map().putAndShare("lobby", "a");
        b.map().putAndShare("kitchen", "b");
        a.counter().addAndGet(5);
        b.counter().addAndGet(7);
        await("both sums", () -> a.counter().sum() == 12 && b.counter().sum() == 12);
        await("both maps", () -> "b".equals(a.map().find("kitchen")) && "a".equals(b.map().find("lobby")));

        a.proxy().cut();
        b.proxy().cut();
        await("A to drop B's parts", () -> a.map().getInfo(b.url()) == null && a.counter().sum() == 5);
        await("B to drop A's parts", () -> b.map().getInfo(a.url()) == null && b.counter().sum() == 7);
        // The listener runs after the part left the object (outside its lock), possibly on another thread.
        await("A's listener told", () -> !removedOnA.isEmpty());
        assertEquals(List.of(b.url()), removedOnA, "A's listener told once");
        await("A's entry listener told", () -> entriesOnA.contains("removed kitchen"));
        assertEquals(List.of("put kitchen", "removed kitchen"), entriesOnA);
        entriesOnA.clear();
        assertNull(a.map().find("kitchen"));
        // Both sides change while apart: many versions the other side never sees.
        for (int i = 0; i < 20; i++) {
            a.map().putAndShare("a" + i, i);
            b.map().putAndShare("b" + i, i);
        }
        a.map().removeAndShare("lobby");
        a.counter().addAndGet(10);
        b.counter().addAndGet(100);

        a.proxy().heal();
        b.proxy().heal();
        await("A to re-sync B's parts", () -> holds(a.map(), b.url(), b.map().getLocal()) && a.counter().sum() == 122);
        await("B to re-sync A's parts", () -> holds(b.map(), a.url(), a.map().getLocal()) && b.counter().sum() == 122);
        assertNull(b.map().find("lobby"));
        assertEquals(21, b.map().getLocal().size());
        await("A's entry listener told of B's entries again", () -> entriesOnA.size() >= 21);
        List<String> expected = new ArrayList<>(List.of("put kitchen"));
        for (int i = 0; i < 20; i++) {
            expected.add("put b" + i);
        }
        assertEquals(expected.stream().sorted().toList(), entriesOnA.stream().sorted().toList());
        // And deltas flow again after the snapshot.
        b.map().putAndShare("after", "heal");
        await("a delta after the heal", () -> "heal".equals(a.map().find("after")));
        assertTrue(holds(a.map(), b.url(), b.map().getLocal()));
    }

    @Test
    void thePartOfANodeWhoseLinkIsBackIsKeptUntilItJoins() throws Exception {
        ProxiedNode a = node();
        ProxiedNode b = node();
        List<String> entriesOnA = new CopyOnWriteArrayList<>();
        a.map().addEntryListener(new OortMap.EntryListener<>() {
            @Override
            public void onPut(Info<Map<String, Object>> info, OortMap.Entry<String, Object> entry) {
                entriesOnA.add("put " + entry.key());
            }

            @Override
            public void onRemoved(Info<Map<String, Object>> info, OortMap.Entry<String, Object> entry) {
                entriesOnA.add("removed " + entry.key());
            }
        });
        a.oort().observeComet(b.url());
        await("the mesh", () -> a.oort().getKnownComets().equals(Set.of(b.url())) && b.oort().getKnownComets().equals(Set.of(a.url())));
        b.map().putAndShare("kitchen", "b");
        await("B's entry on A", () -> "b".equals(a.map().find("kitchen")));

        a.proxy().cut();
        b.proxy().cut();
        await("A to drop B's part", () -> a.map().getInfo(b.url()) == null);
        await("B to drop A's part", () -> b.map().getInfo(a.url()) == null);
        // A's link to B comes back first (its comet subscribes again and is sent B's part); B's link to A is still cut.
        b.proxy().heal();
        long healed = System.nanoTime();
        await("B's part on A before B joined", () -> holds(a.map(), b.url(), b.map().getLocal()));
        assertTrue(!a.oort().getKnownComets().contains(b.url()), () -> "joined already: " + a.oort().getKnownComets());
        // The partition lasts until A swept past the failure timeout: B is alive, its part stays.
        await("a sweep on A past the failure timeout", () -> a.map().lastSweepNanos() - healed > FAILURE.toNanos());
        assertTrue(!a.oort().getKnownComets().contains(b.url()), () -> "joined meanwhile: " + a.oort().getKnownComets());
        assertTrue(holds(a.map(), b.url(), b.map().getLocal()), () -> "B's part swept while its link is up: " + entriesOnA);

        a.proxy().heal();
        await("the mesh again", () -> a.oort().getKnownComets().equals(Set.of(b.url())) && b.oort().getKnownComets().equals(Set.of(a.url())));
        b.map().putAndShare("after", "heal");
        await("a delta after the heal", () -> "heal".equals(a.map().find("after")));
        assertEquals(List.of("put kitchen", "removed kitchen", "put kitchen", "put after"), entriesOnA);
    }

    /** A service that answers with its name and records what its forwards got. */
    private static final class Svc extends OortService<Object, String> {
        final List<String> outcomes = new CopyOnWriteArrayList<>();
        private final String answer;

        Svc(Oort oort, String answer) {
            super(oort, "svc");
            this.answer = answer;
        }

        boolean send(String target, String context) {
            return forward(target, "x", context);
        }

        @Override
        protected Result<Object> onForward(Request request) {
            return Result.success(answer);
        }

        @Override
        protected void onForwardSucceeded(Object result, String context) {
            outcomes.add("ok " + context + " " + result);
        }

        @Override
        protected void onForwardFailed(Object failure, String context) {
            outcomes.add("failed " + context + " " + failure);
        }
    }

    @Test
    void aForwardToTheOtherSideOfAPartitionFailsWhenItIsNoticed() throws Exception {
        ProxiedNode a = node();
        ProxiedNode b = node();
        a.oort().observeComet(b.url());
        await("the mesh", () -> a.oort().getKnownComets().equals(Set.of(b.url())) && b.oort().getKnownComets().equals(Set.of(a.url())));
        Svc onA = new Svc(a.oort(), "a");
        Svc onB = new Svc(b.oort(), "b");
        onA.start();
        closing.add(onA::stop);
        onB.start();
        closing.add(onB::stop);
        onA.setTimeout(Duration.ofMinutes(5));
        List<String> outcomes = onA.outcomes;
        assertTrue(onA.send(b.url(), "before"));
        await("the first answer", () -> outcomes.contains("ok before b"));

        a.proxy().cut();
        b.proxy().cut();
        assertTrue(onA.send(b.url(), "during"));
        await("the forward to fail when B leaves", () -> outcomes.contains("failed during Node " + b.url() + " left"));
        assertEquals(0, onA.getPendingCount());
    }
}
