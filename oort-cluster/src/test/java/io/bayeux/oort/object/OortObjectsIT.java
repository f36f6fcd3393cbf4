package io.bayeux.oort.object;

import io.bayeux.api.server.LocalSession;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.oort.Closing;
import io.bayeux.oort.OortTesting;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.bayeux.oort.OortTesting.await;
import static io.bayeux.oort.OortTesting.awaitMesh;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Oort objects on three nodes in one JVM, on loopback. */
class OortObjectsIT {
    private final Closing closing = new Closing();

    @AfterEach
    void close() {
        closing.closeAll();
    }

    private OortTesting.Node node() {
        OortTesting.Node node = OortTesting.node();
        closing.add(node);
        return node;
    }

    private <O extends OortObject<?>> O started(O object) {
        object.start();
        closing.add(object::stop);
        return object;
    }

    private static Map<String, Object> parts(OortObject<?> object) {
        Map<String, Object> parts = new HashMap<>();
        for (Info<?> info : object) {
            parts.put(info.getOortURL(), info.getObject());
        }
        return parts;
    }

    /** An Error a listener throws, as an assertion in application code might. */
    private static final class ListenerError extends Error {
        ListenerError() {
            super("thrown by the test's listener");
        }
    }

    @Test
    void aListenerThatThrowsAnErrorDoesNotStopTheNextChangesBeingTold() {
        OortTesting.Node a = node();
        OortLong counter = started(new OortLong(a.oort(), "errors"));
        List<Long> told = new ArrayList<>();
        boolean[] fail = {true};
        counter.addListener(new OortObject.Listener<>() {
            @Override
            public void onUpdated(Info<Long> oldInfo, Info<Long> newInfo) {
                if (fail[0]) {
                    fail[0] = false;
                    throw new ListenerError();
                }
                told.add(newInfo.getObject());
            }
        });
        assertThrows(ListenerError.class, () -> counter.addAndGet(1), "the Error reaches the thread that made the change");
        counter.addAndGet(1);
        assertEquals(List.of(2L), told, "the change after the Error is told");
    }

    @Test
    void countersOnThreeNodesConvergeUnderConcurrentUpdates() throws Exception {
        OortTesting.Node a = node();
        OortTesting.Node b = node();
        OortTesting.Node c = node();
        b.oort().observeComet(a.url());
        c.oort().observeComet(a.url());
        awaitMesh(a, b, c);
        List<OortLong> counters = List.of(started(new OortLong(a.oort(), "users")),
                started(new OortLong(b.oort(), "users")), started(new OortLong(c.oort(), "users")));
        int perThread = 300;
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (OortLong counter : counters) {
            for (int t = 0; t < 2; t++) {
                Thread thread = new Thread(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException x) {
                        return;
                    }
                    for (int i = 0; i < perThread; i++) {
                        counter.addAndGet(i % 3 == 2 ? -1 : 1);
                    }
                });
                thread.start();
                threads.add(thread);
            }
        }
        go.countDown();
        for (Thread thread : threads) {
            thread.join(OortTesting.WAIT.toMillis());
        }
        long perNode = 2L * (perThread / 3) * (1 + 1 - 1);
        for (OortLong counter : counters) {
            assertEquals(perNode, counter.get());
        }
        for (OortLong counter : counters) {
            await(counter + " to sum all", () -> counter.sum() == 3 * perNode && parts(counter).size() == 3);
        }
        assertTrue(counters.get(0).compareAndSet(perNode, 1000));
        assertFalse(counters.get(0).compareAndSet(perNode, 2000));
        for (OortLong counter : counters) {
            await(counter + " to see the CAS", () -> counter.sum() == 1000 + 2 * perNode);
        }
    }

    @Test
    void objectsMadeAndChangedBeforeTheNodesLinkConvergeOnceTheyDoAndALateJoinerGetsEverything() throws Exception {
        OortTesting.Node a = node();
        OortTesting.Node b = node();
        // The start-up race: objects exist and change before any link, and while the links form.
        OortStringMap<Object> mapA = started(new OortStringMap<>(a.oort(), "rooms"));
        OortStringMap<Object> mapB = started(new OortStringMap<>(b.oort(), "rooms"));
        mapA.putAndShare("lobby", "a");
        mapB.putAndShare("kitchen", "b");
        b.oort().observeComet(a.url());
        for (int i = 0; i < 50; i++) {
            mapA.putAndShare("a" + i, i);
            mapB.putAndShare("b" + i, i);
        }
        awaitMesh(a, b);
        for (int i = 50; i < 100; i++) {
            mapA.putAndShare("a" + i, i);
        }
        mapA.removeAndShare("a0");
        await("B to hold A's whole part", () -> mapA.getLocal().equals(mapB.getInfo(a.url()) == null ? null : mapB.getInfo(a.url()).getObject()));
        await("A to hold B's whole part", () -> mapB.getLocal().equals(mapA.getInfo(b.url()) == null ? null : mapA.getInfo(b.url()).getObject()));
        assertEquals(100, mapA.getLocal().size(), "lobby + a1..a99");
        assertNull(mapB.find("a0"));
        assertEquals("a", mapB.find("lobby"));
        assertEquals("b", mapA.find("kitchen"));
        assertNull(mapA.get("kitchen"), "get is local");

        List<String> entriesOnB = new CopyOnWriteArrayList<>();
        mapB.addEntryListener(new OortMap.EntryListener<>() {
            @Override
            public void onPut(Info<Map<String, Object>> info, OortMap.Entry<String, Object> entry) {
                entriesOnB.add((info.getOortURL().equals(a.url()) ? "A" : "B") + " put " + entry);
            }

            @Override
            public void onRemoved(Info<Map<String, Object>> info, OortMap.Entry<String, Object> entry) {
                entriesOnB.add((info.getOortURL().equals(a.url()) ? "A" : "B") + " removed " + entry);
            }
        });
        assertEquals("a", mapA.putIfAbsentAndShare("lobby", "other"), "present: not replaced");
        assertNull(mapA.putIfAbsentAndShare("cellar", "a"));
        assertEquals("a", mapA.removeAndShare("cellar"));
        assertNull(mapA.removeAndShare("cellar"), "already gone: nothing shared");
        mapB.putAndShare("kitchen", "b2");
        await("B told of A's entries and its own", () -> entriesOnB.size() >= 3);
        assertEquals(List.of("B put Entry[key=kitchen, oldValue=b, newValue=b2]", "A put Entry[key=cellar, oldValue=null, newValue=a]",
                "A removed Entry[key=cellar, oldValue=a, newValue=null]"), entriesOnB.stream().sorted(
                        java.util.Comparator.comparing((String e) -> !e.startsWith("B")).thenComparing(e -> e.contains("removed"))).toList());
        assertEquals("a", mapB.find("lobby"));

        // A late joiner, whose object starts after it joined.
        OortTesting.Node c = node();
        c.oort().observeComet(b.url());
        awaitMesh(a, b, c);
        OortStringMap<Object> mapC = started(new OortStringMap<>(c.oort(), "rooms"));
        mapC.putAndShare("attic", "c");
        for (OortStringMap<Object> map : List.of(mapA, mapB, mapC)) {
            await(map + " to hold all three parts", () -> parts(map).equals(Map.of(
                    a.url(), mapA.getLocal(), b.url(), mapB.getLocal(), c.url(), mapC.getLocal())));
        }
        assertEquals(99, ((Number) mapC.find("a99")).intValue(), "numbers travel as JSON numbers");
        assertEquals(mapA.getLocal().size() + mapB.getLocal().size() + 1, mapC.merged().size());
    }

    /** A node's part as the links bring it: whole ({@code action} null) or as a delta of the list. */
    private static Map<String, Object> listMessage(String url, long version, String action, List<String> elements) {
        Map<String, Object> message = new LinkedHashMap<>();
        message.put(Info.OORT_URL_FIELD, url);
        message.put(Info.NAME_FIELD, "names");
        message.put(Info.VERSION_FIELD, version);
        if (action != null) {
            message.put(Info.TYPE_FIELD, OortList.TYPE_ELEMENT);
            message.put(Info.ACTION_FIELD, action);
        }
        message.put(Info.OBJECT_FIELD, elements);
        return message;
    }

    /**
     * A node's part arrives whole over one link while its previous delta, arrived over the other,
     * is still being told on another thread: the element listeners are told of the delta first,
     * then of what the whole part changed, never the other way round (their tally would then keep
     * an element the part no longer has).
     */
    @Test
    void changesAppliedOnTwoThreadsAtOnceAreToldInTheOrderTheyWereApplied() throws Exception {
        OortTesting.Node a = node();
        OortList<String> list = started(new OortList<>(a.oort(), "names"));
        String other = "http://127.0.0.1:1/cometd";
        List<String> told = new CopyOnWriteArrayList<>();
        CountDownLatch deltaBeingTold = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        list.addElementListener(new OortList.ElementListener<>() {
            @Override
            public void onAdded(Info<List<String>> info, List<String> elements) {
                if (other.equals(info.getOortURL())) {
                    deltaBeingTold.countDown();
                    try {
                        release.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException x) {
                        Thread.currentThread().interrupt();
                    }
                    told.add("+" + elements);
                }
            }

            @Override
            public void onRemoved(Info<List<String>> info, List<String> elements) {
                if (other.equals(info.getOortURL())) {
                    told.add("-" + elements);
                }
            }
        });
        // Two senders, as the two links are: neither waits for the other.
        LocalSession first = a.oort().getBayeuxServer().newLocalSession("first-link");
        first.handshake();
        LocalSession second = a.oort().getBayeuxServer().newLocalSession("second-link");
        second.handshake();
        first.getChannel(list.getChannelName()).publish(listMessage(other, 1, null, List.of()));
        await("the part held", () -> list.getInfo(other) != null);
        Thread delta = new Thread(() -> first.getChannel(list.getChannelName())
                .publish(listMessage(other, 2, OortList.ACTION_ADD, List.of("carol", "chuck"))));
        delta.start();
        assertTrue(deltaBeingTold.await(10, TimeUnit.SECONDS), "the delta is being told");
        second.getChannel(list.getChannelName()).publish(listMessage(other, 3, null, List.of("carol")));
        await("the whole part applied", () -> list.getInfo(other).getVersion() == 3);
        release.countDown();
        delta.join(10_000);
        await("both told", () -> told.size() >= 2);
        assertEquals(List.of("+[carol, chuck]", "-[chuck]"), told.subList(0, 2));
    }

    @Test
    void aStoppedNodesPartIsRemovedEverywhereAndTheListenersAreTold() throws Exception {
        OortTesting.Node a = node();
        OortTesting.Node b = node();
        OortTesting.Node c = node();
        b.oort().observeComet(a.url());
        c.oort().observeComet(a.url());
        awaitMesh(a, b, c);
        OortList<String> listA = started(new OortList<>(a.oort(), "names"));
        OortList<String> listB = started(new OortList<>(b.oort(), "names"));
        OortList<String> listC = started(new OortList<>(c.oort(), "names"));
        List<String> removedOnA = new CopyOnWriteArrayList<>();
        // Each node's elements as A's element listener was told of them: by deltas or by whole parts
        // (a part may reach A whole, after its deltas), the told state must end up as the real one.
        Map<String, List<String>> toldOnA = new java.util.concurrent.ConcurrentHashMap<>();
        listA.addListener(new OortObject.Listener<>() {
            @Override
            public void onRemoved(Info<List<String>> info) {
                removedOnA.add(info.getOortURL() + "=" + info.getObject());
            }
        });
        listA.addElementListener(new OortList.ElementListener<>() {
            @Override
            public void onAdded(Info<List<String>> info, List<String> elements) {
                toldOnA.compute(info.getOortURL(), (url, told) -> {
                    List<String> next = told == null ? new ArrayList<>() : new ArrayList<>(told);
                    next.addAll(elements);
                    return next;
                });
            }

            @Override
            public void onRemoved(Info<List<String>> info, List<String> elements) {
                toldOnA.compute(info.getOortURL(), (url, told) -> {
                    List<String> next = told == null ? new ArrayList<>() : new ArrayList<>(told);
                    next.removeAll(elements);
                    return next;
                });
            }
        });
        listB.addAndShare("bob");
        listC.addAndShare("carol", "chuck");
        listC.removeAndShare("chuck");
        assertTrue(listC.contains("carol"));
        assertFalse(listA.contains("carol"), "contains is local");
        await("A to see carol", () -> listA.isPresent("carol") && !listA.isPresent("chuck"));
        await("B to see carol", () -> listB.isPresent("carol"));
        await("A told of B's and C's elements", () -> List.of("bob").equals(toldOnA.get(b.url())) && List.of("carol").equals(toldOnA.get(c.url())));

        c.close();
        await("A to drop C's part", () -> listA.getInfo(c.url()) == null);
        await("B to drop C's part", () -> listB.getInfo(c.url()) == null);
        assertFalse(listA.isPresent("carol"));
        assertTrue(listA.isPresent("bob"));
        // The listener runs after the part left the list (outside its lock), on the thread that noticed C leave.
        await("A's listener told", () -> !removedOnA.isEmpty());
        assertEquals(List.of(c.url() + "=[carol]"), removedOnA);
        await("A told C's elements removed", () -> toldOnA.get(c.url()).isEmpty());
        assertEquals(List.of("bob"), toldOnA.get(b.url()));
    }

    /**
     * On B, ahead of the objects' own listeners (create it before starting them): a lossy path for
     * A's messages about the named objects. While {@link #drop dropping}, every message of A's
     * part is lost (the deltas made after the drop began counted: one made before may still be on
     * its way, overtaken by a whole part that travels on the other link); after, A's whole parts are still lost until A gets B's pull
     * for that object, since a whole part that was on its way (the exchange when the objects start
     * has several) would carry what was missed and make the pull needless.
     */
    private static final class Lossy {
        private final java.util.concurrent.atomic.AtomicBoolean dropping = new java.util.concurrent.atomic.AtomicBoolean();
        private final Set<String> holding = java.util.concurrent.ConcurrentHashMap.newKeySet();
        /** Per object, A's version when the drop began. */
        private final Map<String, Long> droppedAfter = new java.util.concurrent.ConcurrentHashMap<>();
        final java.util.concurrent.atomic.AtomicInteger droppedDeltas = new java.util.concurrent.atomic.AtomicInteger();
        /** "name url" of each pull A got after the drop. */
        final List<String> pullsOnA = new CopyOnWriteArrayList<>();
        private final List<String> names;

        Lossy(OortTesting.Node a, OortTesting.Node b, String... names) {
            this.names = List.of(names);
            for (String name : names) {
                ServerChannel.MessageListener lossy = (from, channel, message) -> {
                    Map<String, Object> data = message.getDataAsMap();
                    if (data == null || !a.url().equals(data.get(Info.OORT_URL_FIELD))) {
                        return true;
                    }
                    boolean delta = data.containsKey(Info.TYPE_FIELD);
                    if (!delta && !data.containsKey(Info.OBJECT_FIELD)) {
                        return true;
                    }
                    if (dropping.get()) {
                        if (delta && data.get(Info.VERSION_FIELD) instanceof Number version
                                && version.longValue() > droppedAfter.getOrDefault(name, Long.MAX_VALUE)) {
                            droppedDeltas.incrementAndGet();
                        }
                        return false;
                    }
                    return delta || !holding.contains(name);
                };
                b.server().bayeux().createChannelIfAbsent("/oort/objects/" + name).getReference().addListener(lossy);
                b.server().bayeux().createChannelIfAbsent("/service/oort/objects/" + name).getReference().addListener(lossy);
                // Ahead of A's object, which answers the pull with its whole part.
                a.server().bayeux().createChannelIfAbsent("/service/oort/objects/" + name).getReference().addListener((ServerChannel.MessageListener) (from, channel, message) -> {
                    Map<String, Object> data = message.getDataAsMap();
                    if (data != null && OortObject.ACTION_PULL.equals(data.get(Info.ACTION_FIELD)) && holding.remove(name)) {
                        pullsOnA.add(name + " " + data.get(Info.OORT_URL_FIELD));
                    }
                    return true;
                });
            }
        }

        /** Drops A's messages about these objects of A's. */
        void drop(OortObject<?>... objectsOfA) {
            for (OortObject<?> object : objectsOfA) {
                droppedAfter.put(object.getName(), object.getLocalInfo().getVersion());
            }
            dropping.set(true);
        }

        void stopDropping() {
            holding.addAll(names);
            dropping.set(false);
        }
    }

    @Test
    void aNodeThatMissesDeltasPullsTheWholePartOnTheNextOne() throws Exception {
        OortTesting.Node a = node();
        OortTesting.Node b = node();
        b.oort().observeComet(a.url());
        awaitMesh(a, b);
        Lossy lossy = new Lossy(a, b, "gaps");
        OortStringMap<Object> mapA = started(new OortStringMap<>(a.oort(), "gaps"));
        OortStringMap<Object> mapB = started(new OortStringMap<>(b.oort(), "gaps"));
        long base = mapA.getLocalInfo().getVersion();
        mapA.putAndShare("one", 1);
        await("B to hold A's first entry", () -> mapB.find("one") != null);
        await("B subscribed to A's broadcasts", () -> !a.server().bayeux().getChannel("/oort/objects/gaps").getSubscribers().isEmpty());
        lossy.drop(mapA);
        for (int i = 0; i < 5; i++) {
            mapA.putAndShare("missed" + i, i);
        }
        await("B to lose 5 deltas", () -> lossy.droppedDeltas.get() == 5);
        lossy.stopDropping();
        assertEquals(base + 1, mapB.getInfo(a.url()).getVersion());
        mapA.putAndShare("next", "delta");
        await("B to pull and hold A's whole part", () -> holds(mapB, a.url(), mapA.getLocal()));
        assertEquals(List.of("gaps " + b.url()), lossy.pullsOnA, "one pull, from B");
        assertEquals(base + 7, mapB.getInfo(a.url()).getVersion());
    }

    /** What B's entry and element listeners heard of A's parts, sorted: the order within one whole replacement is not part of the contract. */
    private static List<String> sorted(List<String> events) {
        return events.stream().sorted().toList();
    }

    @Test
    void entryAndElementListenersAreToldOfWholePartsArrivingReplacedAndRemoved() throws Exception {
        OortTesting.Node a = node();
        OortTesting.Node b = node();
        b.oort().observeComet(a.url());
        awaitMesh(a, b);
        Lossy lossy = new Lossy(a, b, "watched", "watchedlist");
        OortStringMap<Object> mapA = started(new OortStringMap<>(a.oort(), "watched"));
        OortList<String> listA = started(new OortList<>(a.oort(), "watchedlist"));
        mapA.putAndShare("lobby", "a");
        mapA.putAndShare("hall", "a");
        listA.addAndShare("p", "q", "p");

        // B's objects start late: A's parts arrive whole, and B's listeners hear each entry and element of them.
        OortStringMap<Object> mapB = new OortStringMap<>(b.oort(), "watched");
        OortList<String> listB = new OortList<>(b.oort(), "watchedlist");
        List<String> entries = new CopyOnWriteArrayList<>();
        List<String> elements = new CopyOnWriteArrayList<>();
        mapB.addEntryListener(new OortMap.EntryListener<>() {
            @Override
            public void onPut(Info<Map<String, Object>> info, OortMap.Entry<String, Object> entry) {
                if (info.getOortURL().equals(a.url())) {
                    // The part given is the one after the change, as CometD gives it.
                    String stale = entry.newValue().equals(info.getObject().get(entry.key())) ? "" : " (stale info)";
                    entries.add("put " + entry.key() + " " + entry.oldValue() + "->" + entry.newValue() + stale);
                }
            }

            @Override
            public void onRemoved(Info<Map<String, Object>> info, OortMap.Entry<String, Object> entry) {
                if (info.getOortURL().equals(a.url())) {
                    entries.add("removed " + entry.key() + " " + entry.oldValue());
                }
            }
        });
        listB.addElementListener(new OortList.ElementListener<>() {
            @Override
            public void onAdded(Info<List<String>> info, List<String> added) {
                if (info.getOortURL().equals(a.url())) {
                    elements.add("added " + added);
                }
            }

            @Override
            public void onRemoved(Info<List<String>> info, List<String> removed) {
                if (info.getOortURL().equals(a.url())) {
                    elements.add("removed " + removed);
                }
            }
        });
        started(mapB);
        started(listB);
        await("B to hold A's parts", () -> holds(mapB, a.url(), mapA.getLocal()) && holds(listB, a.url(), listA.getLocal()));
        await("B told of A's entries and elements", () -> entries.size() >= 2 && !elements.isEmpty());
        assertEquals(List.of("put hall null->a", "put lobby null->a"), sorted(entries));
        assertEquals(List.of("added [p, q, p]"), elements);

        // A gap: B misses A's deltas, and the next one makes it pull A's whole parts, which replace what it held.
        await("B subscribed to A's broadcasts", () -> !a.server().bayeux().getChannel("/oort/objects/watched").getSubscribers().isEmpty()
                && !a.server().bayeux().getChannel("/oort/objects/watchedlist").getSubscribers().isEmpty());
        entries.clear();
        elements.clear();
        lossy.drop(mapA, listA);
        mapA.putAndShare("lobby", "a2");
        mapA.removeAndShare("hall");
        mapA.putAndShare("attic", "a");
        listA.removeAndShare("p");
        listA.addAndShare("r");
        await("B to lose 5 deltas", () -> lossy.droppedDeltas.get() == 5);
        lossy.stopDropping();
        assertTrue(entries.isEmpty() && elements.isEmpty(), () -> "nothing applied yet: " + entries + " " + elements);
        mapA.putAndShare("next", "n");
        listA.addAndShare("s");
        await("B to pull and hold A's whole parts", () -> holds(mapB, a.url(), mapA.getLocal()) && holds(listB, a.url(), listA.getLocal()));
        await("B told of the differences", () -> entries.size() >= 4 && elements.size() >= 2);
        assertEquals(List.of("watched " + b.url(), "watchedlist " + b.url()), sorted(lossy.pullsOnA), "one pull each, from B");
        assertEquals(List.of("put attic null->a", "put lobby a->a2", "put next null->n", "removed hall a"), sorted(entries));
        assertEquals(List.of("added [r, s]", "removed [p, p]"), sorted(elements));

        // A leaves: its parts are removed on B, every entry and element with them.
        entries.clear();
        elements.clear();
        a.close();
        await("B to drop A's parts", () -> mapB.getInfo(a.url()) == null && listB.getInfo(a.url()) == null);
        await("B told of the removals", () -> entries.size() >= 3 && !elements.isEmpty());
        assertEquals(List.of("removed attic a", "removed lobby a2", "removed next n"), sorted(entries));
        assertEquals(List.of("removed [q, r, s]"), elements);
    }

    @Test
    void anObjectRestartedOnANodeReplacesWhatTheOthersHeldOfItsPreviousRun() throws Exception {
        OortTesting.Node a = node();
        OortTesting.Node b = node();
        b.oort().observeComet(a.url());
        awaitMesh(a, b);
        OortStringMap<Object> first = started(new OortStringMap<>(a.oort(), "restart"));
        OortStringMap<Object> mapB = started(new OortStringMap<>(b.oort(), "restart"));
        for (int i = 0; i < 3; i++) {
            first.putAndShare("old" + i, i);
        }
        await("B to hold the first run's part", () -> holds(mapB, a.url(), first.getLocal()));
        first.stop();
        OortStringMap<Object> second = started(new OortStringMap<>(a.oort(), "restart"));
        second.putAndShare("new", "value");
        await("B to hold the second run's part", () -> holds(mapB, a.url(), Map.of("new", "value")));
        assertNull(mapB.find("old0"));
    }

    private static boolean holds(OortObject<?> object, String url, Object value) {
        Info<?> info = object.getInfo(url);
        return info != null && info.getObject().equals(value);
    }

    /** The message's fields, numbers as longs (the JSON codec makes small ones integers). */
    private static Map<String, Object> normalized(Map<String, Object> data) {
        Map<String, Object> copy = new LinkedHashMap<>();
        data.forEach((k, v) -> copy.put(k, v instanceof Number n ? (Object) n.longValue() : v));
        return copy;
    }

    @Test
    void theMessagesFollowCometD8sChannelsAndFields() throws Exception {
        OortTesting.Node a = node();
        OortTesting.Node b = node();
        b.oort().observeComet(a.url());
        awaitMesh(a, b);
        List<Map<String, Object>> broadcastOnB = new CopyOnWriteArrayList<>();
        List<Map<String, Object>> serviceOnB = new CopyOnWriteArrayList<>();
        OortStringMap<Object> mapA = new OortStringMap<>(a.oort(), "wire");
        OortStringMap<Object> mapB = started(new OortStringMap<>(b.oort(), "wire"));
        b.server().bayeux().getChannel("/oort/objects/wire").addListener((ServerChannel.MessageListener) (from, channel, message) -> {
            broadcastOnB.add(normalized(message.getDataAsMap()));
            return true;
        });
        b.server().bayeux().getChannel("/service/oort/objects/wire").addListener((ServerChannel.MessageListener) (from, channel, message) -> {
            serviceOnB.add(normalized(message.getDataAsMap()));
            return true;
        });
        // B's part as A's link receives it when A subscribes to B's broadcasts (CometD's
        // OortObject.InitialStateListener): on the broadcast channel, no action, republished on A.
        List<Map<String, Object>> initialOnA = new CopyOnWriteArrayList<>();
        a.server().bayeux().createChannelIfAbsent("/oort/objects/wire").getReference().addListener((ServerChannel.MessageListener) (from, channel, message) -> {
            if (b.url().equals(message.getDataAsMap().get("oort.info.url"))) {
                initialOnA.add(normalized(message.getDataAsMap()));
            }
            return true;
        });
        started(mapA);
        await("B's part on A's broadcast channel", () -> !initialOnA.isEmpty());
        assertEquals(Map.of("oort.info.url", b.url(), "oort.info.name", "wire", "oort.info.version", mapB.getLocalInfo().getVersion(),
                "oort.info.object", Map.of()), initialOnA.get(0));
        // A's start pushes its part to B; A also answers B's part (with "peer").
        await("A's push on B", () -> serviceOnB.stream().anyMatch(m -> !m.containsKey("oort.info.peer")));
        long base = mapA.getLocalInfo().getVersion();
        assertTrue(Math.abs(base / 1000 - System.currentTimeMillis()) < 600_000, "versions start from the clock");
        Map<String, Object> push = Map.of("oort.info.url", a.url(), "oort.info.name", "wire", "oort.info.version", base,
                "oort.info.object", Map.of(), "oort.info.action", "oort.object.push");
        for (Map<String, Object> message : serviceOnB) {
            Map<String, Object> expected = new HashMap<>(push);
            if (message.containsKey("oort.info.peer")) {
                expected.put("oort.info.peer", b.url());
            }
            assertEquals(expected, message);
        }
        await("B to hold A's part", () -> mapB.getInfo(a.url()) != null);
        await("B subscribed to A's broadcasts", () -> !a.server().bayeux().getChannel("/oort/objects/wire").getSubscribers().isEmpty());
        mapA.putAndShare("k", "v");
        mapA.removeAndShare("k");
        // A's deltas (A's whole part also comes on this channel, when B's link subscribes to A's broadcasts).
        java.util.function.Predicate<Map<String, Object>> deltaFromA = m -> a.url().equals(m.get("oort.info.url")) && m.containsKey("oort.info.type");
        await("both deltas on B", () -> broadcastOnB.stream().filter(deltaFromA).count() == 2);
        List<Map<String, Object>> fromA = broadcastOnB.stream().filter(deltaFromA).toList();
        assertEquals(Map.of("oort.info.url", a.url(), "oort.info.name", "wire", "oort.info.version", base + 1,
                "oort.info.type", "oort.map.entry", "oort.info.action", "oort.map.put",
                "oort.info.object", Map.of("oort.map.key", "k", "oort.map.value", "v")), fromA.get(0));
        assertEquals(Map.of("oort.info.url", a.url(), "oort.info.name", "wire", "oort.info.version", base + 2,
                "oort.info.type", "oort.map.entry", "oort.info.action", "oort.map.remove",
                "oort.info.object", Map.of("oort.map.key", "k")), fromA.get(1));
        await("B to apply both", () -> mapB.getInfo(a.url()).getVersion() == base + 2 && mapB.find("k") == null);

        OortList<String> listA = started(new OortList<>(a.oort(), "wirelist"));
        OortList<String> listB = started(new OortList<>(b.oort(), "wirelist"));
        List<Map<String, Object>> listOnB = new CopyOnWriteArrayList<>();
        b.server().bayeux().getChannel("/oort/objects/wirelist").addListener((ServerChannel.MessageListener) (from, channel, message) -> {
            // A's deltas (not A's whole part, sent when B's link subscribed to A's broadcasts).
            if (a.url().equals(message.getDataAsMap().get("oort.info.url")) && message.getDataAsMap().containsKey("oort.info.type")) {
                listOnB.add(normalized(message.getDataAsMap()));
            }
            return true;
        });
        await("B to hold A's list", () -> listB.getInfo(a.url()) != null);
        long listBase = listA.getLocalInfo().getVersion();
        await("B subscribed to A's list broadcasts", () -> !a.server().bayeux().getChannel("/oort/objects/wirelist").getSubscribers().isEmpty());
        listA.addAndShare("x", "y", "x");
        listA.removeAndShare("x");
        await("both list deltas on B", () -> listOnB.size() == 2);
        assertEquals(Map.of("oort.info.url", a.url(), "oort.info.name", "wirelist", "oort.info.version", listBase + 1,
                "oort.info.type", "oort.list.element", "oort.info.action", "oort.list.add", "oort.info.object", List.of("x", "y", "x")), listOnB.get(0));
        assertEquals(Map.of("oort.info.url", a.url(), "oort.info.name", "wirelist", "oort.info.version", listBase + 2,
                "oort.info.type", "oort.list.element", "oort.info.action", "oort.list.remove", "oort.info.object", List.of("x")), listOnB.get(1));
        await("B to apply the list deltas", () -> List.of("y").equals(listB.getInfo(a.url()).getObject()));
    }
}
