package io.bayeux.cluster.redis;

import io.bayeux.client.BayeuxClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static io.bayeux.cluster.redis.RedisTesting.await;
import static io.bayeux.cluster.redis.RedisTesting.publish;
import static io.bayeux.cluster.redis.RedisTesting.subscribe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Nodes as separate JVMs on one redis-server; one killed with SIGKILL. */
class RedisProcessesIT {
    @RegisterExtension
    final RedisFixture fixture = RedisFixture.withRedis();

    /** A {@link RedisNodeMain} JVM; returns its URL and node id once it printed READY. */
    private String[] nodeProcess() throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        String flags = System.getProperty("bayeux.jvm.flags", "").strip(); // the JVM flags Netty needs (root pom.xml)
        if (!flags.isEmpty()) {
            command.addAll(List.of(flags.split("\\s+")));
        }
        command.addAll(List.of("-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                RedisNodeMain.class.getName(), fixture.redis().uri()));
        File log = new File("target", "redis-node-" + System.nanoTime() + ".log");
        Process process = new ProcessBuilder(command).redirectError(log).start();
        fixture.closing(() -> {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        });
        BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line = in.readLine();
        assertTrue(line != null && line.startsWith("READY "), "node did not start: " + line);
        String[] parts = line.split(" ");
        return new String[]{parts[1], parts[2], String.valueOf(process.pid())};
    }

    @Test
    void twoNodeProcessesThenOneKilled() throws Exception {
        String[] a = nodeProcess();
        String[] b = nodeProcess();
        // A third node here, to watch presence.
        RedisTesting.Node c = RedisTesting.node(fixture.redis(), "/chat/**");
        fixture.closing(c);
        RedisSeti setiC = new RedisSeti(c.cluster(), Duration.ofSeconds(2));
        setiC.start();
        fixture.closing(setiC::stop);

        List<Object> onA = new CopyOnWriteArrayList<>();
        List<Object> onB = new CopyOnWriteArrayList<>();
        List<Object> onC = new CopyOnWriteArrayList<>();
        BayeuxClient clientA = fixture.connected(a[0], "long-polling");
        BayeuxClient clientB = fixture.connected(b[0], "websocket");
        BayeuxClient clientC = fixture.connected(c.url(), "long-polling");
        assertTrue(subscribe(clientA, "/chat/room", (ch, m) -> onA.add(m.getDataAsMap().get("n"))).isSuccessful());
        assertTrue(subscribe(clientB, "/chat/room", (ch, m) -> onB.add(m.getDataAsMap().get("n"))).isSuccessful());
        assertTrue(subscribe(clientC, "/chat/room", (ch, m) -> onC.add(m.getDataAsMap().get("n"))).isSuccessful());
        await("three subscriptions in Redis", () -> numsub("bayeux:/chat/room") == 3);

        BayeuxClient publisherB = fixture.connected(b[0], "long-polling");
        List<Object> expected = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            publisherB.getChannel("/chat/room").publish(Map.of("n", i));
            expected.add(i);
        }
        assertTrue(publish(publisherB, "/chat/room", Map.of("n", -1)).isSuccessful());
        expected.add(-1);
        await("the marker on A", () -> onA.contains(-1));
        await("the marker on B", () -> onB.contains(-1));
        await("the marker on C", () -> onC.contains(-1));
        assertEquals(expected, onA);
        assertEquals(expected, onB);
        assertEquals(expected, onC);

        // alice logs in on A; everybody knows.
        BayeuxClient alice = fixture.connected(a[0], "websocket");
        assertTrue(publish(alice, "/service/login", Map.of("user", "alice")).isSuccessful());
        await("alice present on C", () -> setiC.isPresent("alice"));
        assertEquals(java.util.Set.of(a[1]), setiC.getNodeIds("alice"));

        // kill -9 A: no goodbye; alice leaves with A's heartbeat (TTL 2 s).
        long pid = Long.parseLong(a[2]);
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        long killed = System.nanoTime();
        await("alice gone from C", () -> !setiC.isPresent("alice"));
        long tookMs = (System.nanoTime() - killed) / 1_000_000;
        System.out.println("kill -9: alice gone from the other nodes after " + tookMs + " ms (TTL 2000 ms)");
        assertTrue(tookMs < 15_000, tookMs + " ms");

        // B and C go on.
        assertTrue(publish(publisherB, "/chat/room", Map.of("n", -2)).isSuccessful());
        await("after the kill, on C", () -> onC.contains(-2));
        await("B's subscription and C's left", () -> numsub("bayeux:/chat/room") == 2);
    }

    private int numsub(String channel) {
        try {
            String reply = fixture.redis().command("PUBSUB NUMSUB " + channel);
            return Integer.parseInt(reply.substring(reply.lastIndexOf(':') + 1).trim());
        } catch (java.io.IOException x) {
            return -1;
        }
    }
}
