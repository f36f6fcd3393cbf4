package io.bayeux.examples;

import io.bayeux.annotation.server.ServerAnnotationProcessor;
import io.bayeux.server.ext.AcknowledgedMessagesExtension;
import io.bayeux.server.ext.TimesyncExtension;
import io.bayeux.transport.NettyBayeuxServer;

import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.HistoryPolicy;
import io.bayeux.common.Durations;
import io.bayeux.server.BayeuxServerConfig;
import io.bayeux.server.QueueOverflow;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

/**
 * The demo: chat rooms on {@code /chat/**} (anyone may subscribe and publish), an echo service,
 * room members, and the chat page at {@code /} with the JavaScript client under {@code /js/}.
 * Clients that ask for them get acknowledged delivery and time synchronisation.
 *
 * <pre>
 * bin/bayeux-demo [--port 8080] [--host 127.0.0.1] [--jsonp] [--timeout MS] [--max-interval MS] [--service com.example.MyService]
 *                 [--history-size 100] [--history-ttl 5m] [--max-queue 1000]
 *                 [--oort-url URL --oort-secret S [--oort-peers URL,...] [--oort-channels '/chat/**'] [--oort-failure-timeout MS]]
 *                 [--engine redis://HOST:PORT|redis-sentinel://HOST:PORT,.../MASTER|redis-cluster://HOST:PORT,... [--engine-channels '/chat/**']]
 *                 [--token-secret SECRET | --token-jwks URL] [--no-metrics] [--websocket-compression-context]
 * </pre>
 *
 * <p>With the {@code --oort-*} flags the demo is a node of a cluster ({@link DemoCluster}); with
 * {@code --engine} instead, a node of a cluster on Redis ({@link DemoRedis}). With
 * {@code --token-secret} or {@code --token-jwks}, handshakes need a JWT ({@link DemoTokens}).
 *
 * <p>History (see docs/history.md): {@code --history-size N} messages (default 100) kept
 * {@code --history-ttl} each (default {@code 5m}) on every {@code /chat/**} channel, and on
 * the {@code /event/**} channels (open to anyone, as the rooms are) in the {@code replay}
 * dialect; {@code --history-size 0} turns history off. {@code --max-queue N} bounds each
 * session's queue (default 1,000): a client whose queue overflows is told
 * {@code 409::queue_full} and handshakes again, recovering what it missed from the history.
 *
 * <p>{@code --websocket-compression-context} keeps a permessage-deflate context per connection
 * for the clients that allow it (fewer bytes, more CPU; see docs/transports.md).
 *
 * <p>{@code --port 0} picks a free port; the first line printed names the bound one.
 */
public final class DemoServer {
    private DemoServer() {
    }

    /** Installs the demo's annotated services and its page on a server builder and returns it. */
    public static NettyBayeuxServer.Builder configure(NettyBayeuxServer.Builder builder, Object... extraServices) {
        Object[] services = new Object[3 + extraServices.length];
        services[0] = new ChatService();
        services[1] = new EchoService();
        services[2] = new MembersService();
        System.arraycopy(extraServices, 0, services, 3, extraServices.length);
        return builder
                .staticRoot("classpath:/demo")
                .service(bayeux -> {
                    bayeux.addExtension(new AcknowledgedMessagesExtension());
                    bayeux.addExtension(new TimesyncExtension());
                })
                .service(ServerAnnotationProcessor.services(services));
    }

    /** The demo's history: {@code /chat/**} with positions, {@code /event/**} in the {@code replay} dialect. */
    public static Consumer<BayeuxServer> history(HistoryPolicy policy) {
        return bayeux -> {
            // ChatService's @Configure made /chat/** already: an initializer would not run on it.
            bayeux.createChannelIfAbsent("/chat/**").getReference().setHistory(policy);
            bayeux.createChannelIfAbsent("/event/**", channel -> {
                channel.setPersistent(true);
                channel.setHistory(policy.withReplayIds());
            });
        };
    }

    public static void main(String[] args) throws InterruptedException {
        int port = 8080;
        String host = "127.0.0.1";
        boolean jsonp = false;
        long timeout = -1;
        long maxInterval = -1;
        int historySize = 100;
        Integer maxQueue = null;
        Duration historyTtl = Duration.ofMinutes(5);
        List<Object> extra = new ArrayList<>();
        DemoCluster cluster = new DemoCluster();
        DemoRedis redis = new DemoRedis();
        DemoTokens tokens = new DemoTokens();
        boolean metrics = true;
        boolean compressionContext = false;
        for (int i = 0; i < args.length; i++) {
            if (DemoTokens.FLAGS.contains(args[i])) {
                tokens.set(args[i], value(args, ++i, args[i]));
                continue;
            }
            if (DemoRedis.FLAGS.contains(args[i])) {
                redis.set(args[i], value(args, ++i, args[i]));
                continue;
            }
            if (DemoCluster.FLAGS.contains(args[i])) {
                cluster.set(args[i], value(args, ++i, args[i]));
                continue;
            }
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(value(args, ++i, "--port"));
                case "--host" -> host = value(args, ++i, "--host");
                case "--jsonp" -> jsonp = true;
                case "--websocket-compression-context" -> compressionContext = true;
                case DemoMetrics.FLAG -> metrics = false;
                case "--timeout" -> timeout = Long.parseLong(value(args, ++i, "--timeout"));
                case "--max-interval" -> maxInterval = Long.parseLong(value(args, ++i, "--max-interval"));
                case "--history-size" -> historySize = Integer.parseInt(value(args, ++i, "--history-size"));
                case "--max-queue" -> maxQueue = Integer.parseInt(value(args, ++i, "--max-queue"));
                case "--history-ttl" -> historyTtl = Durations.parse(value(args, ++i, "--history-ttl"), "--history-ttl");
                case "--service" -> extra.add(value(args, ++i, "--service"));
                case "-h", "--help" -> {
                    System.out.println("Usage: bayeux-demo [--port N] [--host ADDRESS] [--jsonp] [--timeout MS] [--max-interval MS] [--service CLASS_NAME]..."
                            + " [--history-size N] [--history-ttl DURATION] [--max-queue N] [--no-metrics] [--websocket-compression-context]"
                            + " [--oort-url URL --oort-secret SECRET [--oort-peers URL,...] [--oort-channels PATTERN,...] [--oort-failure-timeout MS]]"
                            + " [--engine redis://HOST:PORT|redis-sentinel://HOST:PORT,.../MASTER|redis-cluster://HOST:PORT,... [--engine-channels PATTERN,...]]"
                            + " [--token-secret SECRET | --token-jwks URL]");
                    return;
                }
                default -> {
                    System.err.println("Unknown option " + args[i] + "; usage: bayeux-demo [--port N] [--host ADDRESS] [--jsonp] [--timeout MS] [--service CLASS_NAME]...");
                    System.exit(2);
                }
            }
        }
        NettyBayeuxServer.Builder builder = NettyBayeuxServer.builder().host(host).port(port).jsonp(jsonp)
                .websocketCompressionContext(compressionContext);
        if (maxQueue != null) {
            builder.maxQueue(maxQueue, QueueOverflow.DISCONNECT);
        }
        if (timeout >= 0 || maxInterval >= 0) {
            // How long a /meta/connect is held, and a session kept without one; the defaults
            // (20 s, 10 s) suit production, tests want less. The rest stays the server's.
            BayeuxServerConfig.Builder config = BayeuxServerConfig.builder();
            if (timeout >= 0) {
                config.timeout(Duration.ofMillis(timeout));
            }
            if (maxInterval >= 0) {
                config.maxInterval(Duration.ofMillis(maxInterval));
            }
            builder.bayeuxConfig(config.build());
        }
        if (tokens.enabled()) {
            // Before the cluster starts: its Oort wraps this policy and lets its nodes in with its own secret.
            tokens.install(builder);
        }
        configure(builder, extra.toArray());
        if (historySize > 0) {
            builder.service(history(HistoryPolicy.of(historySize, historyTtl)));
        }
        if (cluster.enabled() && redis.enabled()) {
            System.err.println("--engine and --oort-* are two ways to make a cluster: choose one");
            System.exit(2);
        }
        DemoMetrics demoMetrics = !metrics ? null : new DemoMetrics(cluster.enabled() ? "oort" : redis.enabled() ? "redis" : null);
        if (demoMetrics != null) {
            demoMetrics.addTo(builder);
        }
        io.bayeux.oort.OortNode node = cluster.enabled() ? cluster.start(builder) : null;
        io.bayeux.cluster.redis.RedisNode redisNode = redis.enabled() ? redis.start(builder) : null;
        NettyBayeuxServer server = node != null ? node.server() : redisNode != null ? redisNode.server() : builder.build().start();
        if (tokens.enabled() && (node != null || redisNode != null)) {
            tokens.associateUsers(node != null ? node.seti() : redisNode.seti());
        }
        if (demoMetrics != null) {
            demoMetrics.bind(server);
            if (node != null) {
                demoMetrics.bind(node, !cluster.peers().isEmpty());
            } else if (redisNode != null) {
                demoMetrics.bind(redisNode);
            }
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("Stopping...");
            if (node != null) {
                node.stop();
            } else if (redisNode != null) {
                redisNode.stop();
            } else {
                server.stop();
            }
            stopped.countDown();
        }, "bayeux-demo-shutdown"));
        if (node != null) {
            System.out.println("Cluster node " + node.oort().getURL() + " (id " + node.oort().getId() + "), peers " + cluster.peers()
                    + ", observing " + node.oort().getObservedChannels());
        }
        if (redisNode != null) {
            System.out.println("Cluster node " + redisNode.cluster().getNodeId() + " on " + redis.uri()
                    + ", observing " + redisNode.cluster().getObservedChannels());
        }
        String page = server.uri().resolve("/").toString();
        System.out.println("Bayeux demo running: open " + page + " (endpoint " + server.uri() + "); Ctrl-C stops it.");
        if (demoMetrics != null) {
            System.out.println("Metrics at " + server.uri().resolve("/metrics") + ", health at /health/live and /health/ready, admin page at "
                    + server.uri().resolve("/admin.html") + " (loopback clients only)");
        }
        stopped.await();
    }

    private static String value(String[] args, int index, String option) {
        if (index >= args.length) {
            System.err.println(option + " needs a value");
            System.exit(2);
        }
        return args[index];
    }
}
