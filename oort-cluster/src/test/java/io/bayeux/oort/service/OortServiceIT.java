package io.bayeux.oort.service;

import io.bayeux.oort.Closing;
import io.bayeux.oort.Oort;
import io.bayeux.oort.OortTesting;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static io.bayeux.oort.OortTesting.await;
import static io.bayeux.oort.OortTesting.awaitMesh;
import static io.bayeux.oort.OortTesting.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Oort services on three nodes in one JVM, on loopback. */
class OortServiceIT {
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

    /** What a caller was told: "ok:" or "failed:" with the data and the context. */
    record Outcome(boolean success, Object data, String context) {
    }

    /** A service whose onForward is a function; outcomes are queued. */
    static class Recording extends OortService<Object, String> {
        final BlockingQueue<Outcome> outcomes = new LinkedBlockingQueue<>();
        final Function<Request, Result<Object>> action;

        Recording(Oort oort, Function<Request, Result<Object>> action) {
            super(oort, "users");
            this.action = action;
        }

        boolean send(String target, Object parameter, String context) {
            return forward(target, parameter, context);
        }

        @Override
        protected Result<Object> onForward(Request request) {
            return action.apply(request);
        }

        @Override
        protected void onForwardSucceeded(Object result, String context) {
            outcomes.add(new Outcome(true, result, context));
        }

        @Override
        protected void onForwardFailed(Object failure, String context) {
            outcomes.add(new Outcome(false, failure, context));
        }
    }

    private Recording started(Recording service) {
        service.start();
        closing.add(service::stop);
        return service;
    }

    @Test
    void aForwardRunsOnTheOwnerAndItsSuccessFailureOrIgnoreComesBack() throws Exception {
        OortTesting.Node a = node();
        OortTesting.Node b = node();
        OortTesting.Node c = node();
        b.oort().observeComet(a.url());
        c.oort().observeComet(a.url());
        awaitMesh(a, b, c);
        Function<OortTesting.Node, Function<OortService.Request, OortService.Result<Object>>> owner = node -> request -> {
            Map<String, Object> parameter = request.getDataAsMap();
            String user = (String) parameter.get("user");
            if (!user.startsWith(node == b ? "b" : node == c ? "c" : "a")) {
                return OortService.Result.ignore("not here: " + user);
            }
            if (user.endsWith("!")) {
                throw new IllegalArgumentException("bad user " + user);
            }
            if (user.endsWith("?")) {
                return OortService.Result.failure("no such user " + user);
            }
            return OortService.Result.success(Map.of("user", user, "node", node.url(), "from", request.getOortURL()));
        };
        Recording onA = started(new Recording(a.oort(), owner.apply(a)));
        started(new Recording(b.oort(), owner.apply(b)));
        started(new Recording(c.oort(), owner.apply(c)));

        assertTrue(onA.send(b.url(), Map.of("user", "bob"), "ctx1"));
        assertEquals(new Outcome(true, Map.of("user", "bob", "node", b.url(), "from", a.url()), "ctx1"), next(onA.outcomes));
        assertTrue(onA.send(b.url(), Map.of("user", "bob?"), "ctx2"));
        assertEquals(new Outcome(false, "no such user bob?", "ctx2"), next(onA.outcomes));
        assertTrue(onA.send(c.url(), Map.of("user", "carl!"), "ctx3"));
        assertEquals(new Outcome(false, "bad user carl!", "ctx3"), next(onA.outcomes));
        assertTrue(onA.send(c.url(), Map.of("user", "bob"), "ctx4"));
        assertEquals(new Outcome(false, "not here: bob", "ctx4"), next(onA.outcomes), "ignore on a direct forward fails");
        assertTrue(onA.send(a.url(), Map.of("user", "alice"), "ctx5"));
        assertEquals(new Outcome(true, Map.of("user", "alice", "node", a.url(), "from", a.url()), "ctx5"), next(onA.outcomes));
        // Unknown owner: broadcast; only the owner answers.
        assertTrue(onA.send(null, Map.of("user", "cindy"), "ctx6"));
        assertEquals(new Outcome(true, Map.of("user", "cindy", "node", c.url(), "from", a.url()), "ctx6"), next(onA.outcomes));
        assertFalse(onA.send("http://127.0.0.1:1/cometd", Map.of("user", "x"), "ctx7"), "not joined: not sent");
        assertNull(onA.outcomes.poll(300, TimeUnit.MILLISECONDS), "exactly one outcome each");
        assertEquals(0, onA.getPendingCount());
    }

    @Test
    void aForwardThatGetsNoAnswerTimesOutAndOneToANodeThatStopsFailsWhenItLeaves() throws Exception {
        OortTesting.Node a = node();
        OortTesting.Node b = node();
        OortTesting.Node c = node();
        b.oort().observeComet(a.url());
        c.oort().observeComet(a.url());
        awaitMesh(a, b, c);
        CountDownLatch release = new CountDownLatch(1);
        closing.add(release::countDown);
        Function<OortService.Request, OortService.Result<Object>> stuck = request -> {
            try {
                release.await(OortTesting.WAIT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
            }
            return OortService.Result.success("late");
        };
        Recording onA = started(new Recording(a.oort(), request -> OortService.Result.success("a")));
        started(new Recording(b.oort(), stuck));
        started(new Recording(c.oort(), stuck));

        onA.setTimeout(Duration.ofMillis(1500));
        long start = System.nanoTime();
        assertTrue(onA.send(b.url(), "anything", "timeout"));
        Outcome timedOut = next(onA.outcomes);
        assertFalse(timedOut.success());
        assertEquals("timeout", timedOut.context());
        assertTrue(String.valueOf(timedOut.data()).startsWith("Timed out"), timedOut::toString);
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(1400), "not before the timeout");

        // The node leaves long before a (long) timeout: the forward fails when it does.
        onA.setTimeout(OortTesting.WAIT.plusSeconds(60));
        assertTrue(onA.send(c.url(), "anything", "left"));
        await("the forward to be pending", () -> onA.getPendingCount() == 1);
        c.oort().stop();
        Outcome left = next(onA.outcomes);
        assertEquals(new Outcome(false, "Node " + c.url() + " left", "left"), left);
        assertEquals(0, onA.getPendingCount());
    }

    private static Map<String, Object> normalized(Map<String, Object> data) {
        Map<String, Object> copy = new java.util.LinkedHashMap<>();
        data.forEach((k, v) -> copy.put(k, v instanceof Number n ? (Object) n.longValue() : v));
        return copy;
    }

    @Test
    void theMessagesFollowCometD8sChannelsAndFields() throws Exception {
        OortTesting.Node a = node();
        OortTesting.Node b = node();
        b.oort().observeComet(a.url());
        awaitMesh(a, b);
        Recording onA = started(new Recording(a.oort(), request -> "broadcast".equals(request.getData())
                ? OortService.Result.ignore("not a") : OortService.Result.success("a")));
        started(new Recording(b.oort(), request -> "broadcast".equals(request.getData())
                ? OortService.Result.success("from b") : OortService.Result.failure("no")));
        BlockingQueue<String> seen = new LinkedBlockingQueue<>();
        for (OortTesting.Node node : List.of(a, b)) {
            for (String channel : List.of("/service/oort/service/users", "/service/oort/service/users/result", "/oort/service/users")) {
                node.server().bayeux().getChannel(channel).addListener((io.bayeux.api.server.ServerChannel.MessageListener) (from, ch, message) -> {
                    seen.add((node == a ? "A " : "B ") + ch.getId() + " " + normalized(message.getDataAsMap()));
                    return true;
                });
            }
        }
        assertTrue(onA.send(b.url(), "direct", "one"));
        assertEquals(new Outcome(false, "no", "one"), next(onA.outcomes));
        String forwardOnB = "B /service/oort/service/users " + Map.of("oort.service.id", 1L, "oort.service.url", a.url(),
                "oort.service.parameter", "direct").entrySet().stream().map(Object::toString).sorted().toList();
        String resultOnA = "A /service/oort/service/users/result " + Map.of("oort.service.id", 1L, "oort.service.url", b.url(),
                "oort.service.result", false, "oort.service.data", "no").entrySet().stream().map(Object::toString).sorted().toList();
        // The listeners run in either order: compare as a set.
        assertEquals(Set.of(forwardOnB, resultOnA), Set.of(sortedEntries(next(seen)), sortedEntries(next(seen))));
        assertTrue(onA.send(null, "broadcast", "two"));
        assertEquals(new Outcome(true, "from b", "two"), next(onA.outcomes));
        String broadcastOnB = "B /oort/service/users " + Map.of("oort.service.id", 2L, "oort.service.url", a.url(),
                "oort.service.parameter", "broadcast").entrySet().stream().map(Object::toString).sorted().toList();
        List<String> rest = new java.util.concurrent.CopyOnWriteArrayList<>();
        await("the broadcast on B", () -> {
            seen.drainTo(rest);
            return rest.stream().map(OortServiceIT::sortedEntries).anyMatch(broadcastOnB::equals);
        });
    }

    /** "X channel {k=v, ...}" as "X channel [k=v, ...]" with the entries sorted. */
    private static String sortedEntries(String seen) {
        int brace = seen.indexOf('{');
        String head = seen.substring(0, brace);
        String body = seen.substring(brace + 1, seen.length() - 1);
        return head + java.util.Arrays.stream(body.split(", ")).sorted().toList();
    }

    /** An elected (or fixed) primary that answers with its URL. */
    static class Primary extends OortPrimaryService<Object, String> {
        final BlockingQueue<Outcome> outcomes = new LinkedBlockingQueue<>();

        Primary(Oort oort, String name, String primary) {
            super(oort, name, primary);
        }

        boolean ask(String context) {
            return forwardToPrimary("who", context);
        }

        @Override
        protected Result<Object> onForward(Request request) {
            return isPrimary() ? Result.success(getOort().getURL()) : Result.ignore("not primary");
        }

        @Override
        protected void onForwardSucceeded(Object result, String context) {
            outcomes.add(new Outcome(true, result, context));
        }

        @Override
        protected void onForwardFailed(Object failure, String context) {
            outcomes.add(new Outcome(false, failure, context));
        }
    }

    @Test
    void anElectedPrimaryIsTheSameEverywhereAndAnotherIsElectedWhenItStopsWhileAFixedOneFailsClearly() throws Exception {
        List<OortTesting.Node> nodes = List.of(node(), node(), node());
        nodes.get(1).oort().observeComet(nodes.get(0).url());
        nodes.get(2).oort().observeComet(nodes.get(0).url());
        awaitMesh(nodes.toArray(OortTesting.Node[]::new));
        TreeSet<String> urls = new TreeSet<>();
        List<Primary> elected = new ArrayList<>();
        List<Primary> fixed = new ArrayList<>();
        for (OortTesting.Node node : nodes) {
            urls.add(node.url());
        }
        String first = urls.first();
        String second = urls.higher(first);
        for (OortTesting.Node node : nodes) {
            Primary service = new Primary(node.oort(), "elected", null);
            service.start();
            closing.add(service::stop);
            elected.add(service);
            Primary fixedService = new Primary(node.oort(), "fixed", first);
            fixedService.start();
            closing.add(fixedService::stop);
            fixed.add(fixedService);
        }
        for (Primary service : elected) {
            assertTrue(service.elected());
            assertEquals(first, service.getPrimaryOortURL());
            assertTrue(service.ask("q"));
            assertEquals(new Outcome(true, first, "q"), next(service.outcomes));
        }
        assertEquals(1, elected.stream().filter(Primary::isPrimary).count(), "one primary");
        for (Primary service : fixed) {
            assertFalse(service.elected());
            assertTrue(service.ask("fixed"));
            assertEquals(new Outcome(true, first, "fixed"), next(service.outcomes));
        }

        OortTesting.Node primaryNode = nodes.stream().filter(n -> n.url().equals(first)).findFirst().orElseThrow();
        primaryNode.oort().stop();
        for (int i = 0; i < nodes.size(); i++) {
            if (nodes.get(i) == primaryNode) {
                continue;
            }
            Primary service = elected.get(i);
            await("a new primary on " + nodes.get(i).url(), () -> second.equals(service.getPrimaryOortURL()));
            assertTrue(service.ask("again"));
            assertEquals(new Outcome(true, second, "again"), next(service.outcomes));
            // The fixed primary is gone: requests fail at once, clearly, until it is back.
            Primary fixedService = fixed.get(i);
            await("the fixed primary gone on " + nodes.get(i).url(), () -> fixedService.getPrimaryOortURL() == null);
            assertFalse(fixedService.ask("none"));
            assertEquals(new Outcome(false, OortPrimaryService.NO_PRIMARY, "none"), fixedService.outcomes.poll());
        }
    }
}
