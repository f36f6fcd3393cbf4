package io.bayeux.oort;

import io.bayeux.api.server.ConfigurableServerChannel;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.oort.object.Info;
import io.bayeux.oort.object.OortLong;
import io.bayeux.oort.object.OortObject;
import io.bayeux.oort.object.OortStringMap;
import io.bayeux.oort.service.OortService;
import io.bayeux.transport.NettyBayeuxServer;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A cluster node in its own JVM with Oort objects and a service, for the tests that kill nodes:
 * an {@link OortLong} "count", an {@link OortStringMap} "map" and an {@link OortService} "svc"
 * (answers its URL; a "hang" request never answers). Commands on {@code /service/cmd}:
 * {@code {"op": "add", "times": K}} (adds 1, K times), {@code {"op": "put", "prefix": P, "count": K}},
 * {@code {"op": "remove", "prefix": P, "count": K}}, {@code {"op": "forward", "target": URL, "param": X, "ctx": C}}.
 * Prints {@code READY <id> <url>}, then, when they change, {@code SUM <n>}, {@code MAP <url>=<size> ...}
 * and {@code DIGEST <url>=<digest> ...} (sorted by URL; see {@link #digest}), and
 * {@code REMOVED <object> <url>}, {@code FORWARD-OK <ctx> <data>}, {@code FORWARD-FAILED <ctx> <failure>}.
 *
 * <pre>ObjectsNodeMain PORT SECRET FAILURE_MS [PEER_URL...]</pre>
 *
 * <p>{@code -Doort.url=URL} makes the node's Oort URL {@code URL} (a proxy in front of it) instead of its own.
 */
public final class ObjectsNodeMain {
    private ObjectsNodeMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        int port = Integer.parseInt(args[0]);
        OortConfig config = OortConfig.builder().secret(args[1]).failureTimeout(Duration.ofMillis(Long.parseLong(args[2])))
                .maxBackoff(Duration.ofSeconds(1)).peers(Arrays.asList(args).subList(3, args.length)).build();
        NettyBayeuxServer server = NettyBayeuxServer.builder().host("127.0.0.1").port(port).build().start();
        Oort oort = config.newOort(server.bayeux(), System.getProperty("oort.url", server.uri().toString()));
        oort.start();
        OortLong count = new OortLong(oort, "count");
        OortStringMap<Object> map = new OortStringMap<>(oort, "map");
        count.addListener(removals("count"));
        map.addListener(removals("map"));
        count.start();
        map.start();
        CountDownLatch never = new CountDownLatch(1);
        Svc svc = new Svc(oort, never);
        svc.setTimeout(Duration.ofMinutes(5));
        svc.start();
        ServerChannel cmd = server.bayeux().createChannelIfAbsent("/service/cmd", ConfigurableServerChannel.Initializer.persistent()).getReference();
        cmd.addListener((ServerChannel.MessageListener) (from, channel, message) -> {
            Map<String, Object> data = message.getDataAsMap();
            if (data == null) {
                return true;
            }
            switch (String.valueOf(data.get("op"))) {
                case "add" -> {
                    int times = ((Number) data.get("times")).intValue();
                    for (int i = 0; i < times; i++) {
                        count.addAndGet(1);
                    }
                }
                case "put" -> {
                    int n = ((Number) data.get("count")).intValue();
                    for (int i = 0; i < n; i++) {
                        map.putAndShare(data.get("prefix") + "-" + i, i);
                    }
                }
                case "remove" -> {
                    int n = ((Number) data.get("count")).intValue();
                    for (int i = 0; i < n; i++) {
                        map.removeAndShare(data.get("prefix") + "-" + i);
                    }
                }
                case "forward" -> svc.send((String) data.get("target"), data.get("param"), (String) data.get("ctx"));
                default -> print("UNKNOWN " + data);
            }
            return true;
        });
        config.observePeers(oort);
        ScheduledExecutorService reporter = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "reporter");
            thread.setDaemon(true);
            return thread;
        });
        String[] last = {"", "", ""};
        reporter.scheduleWithFixedDelay(() -> {
            String sum = "SUM " + count.sum();
            TreeMap<String, Integer> sizes = new TreeMap<>();
            for (Info<Map<String, Object>> info : map) {
                sizes.put(info.getOortURL(), info.getObject().size());
            }
            TreeMap<String, String> digests = new TreeMap<>();
            for (Info<Map<String, Object>> info : map) {
                digests.put(info.getOortURL(), digest(info.getObject()));
            }
            StringBuilder line = new StringBuilder("MAP");
            sizes.forEach((url, size) -> line.append(' ').append(url).append('=').append(size));
            StringBuilder digestLine = new StringBuilder("DIGEST");
            digests.forEach((url, digest) -> digestLine.append(' ').append(url).append('=').append(digest));
            if (!sum.equals(last[0])) {
                last[0] = sum;
                print(sum);
            }
            if (!line.toString().equals(last[1])) {
                last[1] = line.toString();
                print(line.toString());
            }
            if (!digestLine.toString().equals(last[2])) {
                last[2] = digestLine.toString();
                print(digestLine.toString());
            }
        }, 100, 100, TimeUnit.MILLISECONDS);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            never.countDown();
            svc.stop();
            map.stop();
            count.stop();
            oort.stop();
            server.stop();
            stopped.countDown();
        }));
        print("READY " + oort.getId() + " " + oort.getURL());
        stopped.await();
    }

    /** A map's contents in a few characters: the hash of its entries sorted by key (numbers print alike, whatever their JSON type). */
    static String digest(Map<String, ?> map) {
        return map.size() + ":" + Integer.toHexString(new TreeMap<>(map).toString().hashCode());
    }

    private static <T> OortObject.Listener<T> removals(String name) {
        return new OortObject.Listener<>() {
            @Override
            public void onRemoved(Info<T> info) {
                print("REMOVED " + name + " " + info.getOortURL());
            }
        };
    }

    private static final class Svc extends OortService<Object, String> {
        private final CountDownLatch never;

        Svc(Oort oort, CountDownLatch never) {
            super(oort, "svc");
            this.never = never;
        }

        void send(String target, Object parameter, String context) {
            if (!forward(target, parameter, context)) {
                print("FORWARD-NOT-SENT " + context);
            }
        }

        @Override
        protected Result<Object> onForward(Request request) {
            if ("hang".equals(request.getData())) {
                try {
                    never.await();
                } catch (InterruptedException x) {
                    Thread.currentThread().interrupt();
                }
            }
            return Result.success(getOort().getURL());
        }

        @Override
        protected void onForwardSucceeded(Object result, String context) {
            print("FORWARD-OK " + context + " " + result);
        }

        @Override
        protected void onForwardFailed(Object failure, String context) {
            print("FORWARD-FAILED " + context + " " + failure);
        }
    }

    private static synchronized void print(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
