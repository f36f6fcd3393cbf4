package io.bayeux.cluster.redis;

import io.bayeux.common.LoopbackPorts;
import io.bayeux.testing.Await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A Redis Cluster of the tests' own: {@code 2 × masters} servers started with
 * {@code --cluster-enabled yes} on free loopback ports, joined by
 * {@code redis-cli --cluster create ... --cluster-replicas 1}, each master with one replica. The
 * server program is {@link RedisProcess#namedServer()} (its {@code -cli} beside it: Valkey's
 * with Valkey). A short node timeout keeps a failover to seconds. Each server is stopped by its
 * pid in {@link #close()}.
 */
final class RedisClusterProcesses implements AutoCloseable {
    /** How long a node goes unanswered before the cluster counts it failed: a failover in a few seconds. */
    static final Duration NODE_TIMEOUT = Duration.ofMillis(1000);

    private final List<RedisProcess> servers;

    private RedisClusterProcesses(List<RedisProcess> servers) {
        this.servers = servers;
    }

    /** Starts {@code masters} masters and as many replicas, and waits until every node says the cluster is ok. */
    static RedisClusterProcesses start(int masters) throws Exception {
        String program = RedisProcess.namedServer();
        List<RedisProcess> servers = new ArrayList<>();
        RedisClusterProcesses cluster = new RedisClusterProcesses(servers);
        try {
            for (int i = 0; i < 2 * masters; i++) {
                // The cluster bus on a port of its own: the default, port + 10000, may be taken or past 65535.
                servers.add(RedisProcess.start(program, List.of("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                        "--cluster-node-timeout", String.valueOf(NODE_TIMEOUT.toMillis()),
                        "--cluster-port", String.valueOf(LoopbackPorts.unused()))));
            }
            List<String> create = new ArrayList<>(List.of(cli(program), "--cluster", "create"));
            servers.forEach(s -> create.add("127.0.0.1:" + s.port()));
            create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
            run(create);
            for (RedisProcess server : servers) {
                Await.until(RedisTesting.WAIT, () -> "ok".equals(field(server, "cluster_state")), () -> "cluster ok on " + server.port());
            }
            // A replica not yet in sync with its master would not take over from it.
            Await.until(RedisTesting.WAIT, () -> servers.stream().filter(s -> "up".equals(replication(s, "master_link_status"))).count() == masters,
                    () -> "every replica in sync with its master");
            return cluster;
        } catch (Exception | Error x) {
            cluster.close();
            throw x;
        }
    }

    /** {@code redis-cli} for {@code redis-server}, {@code valkey-cli} for {@code valkey-server}. */
    private static String cli(String program) {
        return program.endsWith("-server") ? program.substring(0, program.length() - "-server".length()) + "-cli" : "redis-cli";
    }

    /** Runs {@code command}, at most a minute; fails with its output unless it exits 0. */
    static String run(List<String> command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("still running after a minute: " + command);
            }
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (process.exitValue() != 0) {
                throw new IllegalStateException(command + " exited " + process.exitValue() + ": " + output);
            }
            return output;
        } finally {
            process.destroyForcibly();
        }
    }

    /** {@code redis-cluster://} with every server as a seed. */
    String uri() {
        return servers.stream().map(s -> "127.0.0.1:" + s.port()).collect(Collectors.joining(",", "redis-cluster://", ""));
    }

    List<RedisProcess> servers() {
        return List.copyOf(servers);
    }

    /** The slot of {@code key} (a channel name or a key). */
    int slot(String key) throws IOException {
        String reply = alive().command("CLUSTER KEYSLOT " + key);
        return Integer.parseInt(reply.substring(1).strip());
    }

    /** The running master that serves {@code slot} now, as the live nodes see it. */
    RedisProcess masterOf(int slot) throws IOException {
        for (String line : nodes(alive())) {
            String[] f = line.split(" ");
            if (!f[2].contains("master") || f[2].contains("fail")) {
                continue;
            }
            for (int i = 8; i < f.length; i++) {
                String range = f[i];
                if (range.startsWith("[")) {
                    continue;
                }
                int dash = range.indexOf('-');
                int from = Integer.parseInt(dash < 0 ? range : range.substring(0, dash));
                int to = dash < 0 ? from : Integer.parseInt(range.substring(dash + 1));
                if (slot >= from && slot <= to) {
                    return byAddress(f[1]);
                }
            }
        }
        return null;
    }

    /** The running masters. */
    List<RedisProcess> masters() throws IOException {
        List<RedisProcess> masters = new ArrayList<>();
        for (String line : nodes(alive())) {
            String[] f = line.split(" ");
            if (f[2].contains("master") && !f[2].contains("fail")) {
                RedisProcess server = byAddress(f[1]);
                if (server != null && server.isAlive()) {
                    masters.add(server);
                }
            }
        }
        return masters;
    }

    /** {@code server}'s node id. */
    String nodeId(RedisProcess server) throws IOException {
        return server.command("CLUSTER MYID").split("\r\n")[1];
    }

    /**
     * Moves {@code slot}, with its keys, from the master serving it to {@code target}, as
     * {@code redis-cli --cluster reshard} does for each slot: importing / migrating, {@code MIGRATE}
     * of its keys, then the new owner told to every master.
     */
    void migrate(int slot, RedisProcess target) throws Exception {
        RedisProcess source = masterOf(slot);
        String sourceId = nodeId(source);
        String targetId = nodeId(target);
        expectOk(target.command("CLUSTER SETSLOT " + slot + " IMPORTING " + sourceId));
        expectOk(source.command("CLUSTER SETSLOT " + slot + " MIGRATING " + targetId));
        for (int round = 0; round < 1_000; round++) {
            List<String> keys = bulkStrings(source.command("CLUSTER GETKEYSINSLOT " + slot + " 100"));
            if (keys.isEmpty()) {
                break;
            }
            expectOk(source.command("MIGRATE 127.0.0.1 " + target.port() + " \"\" 0 5000 KEYS " + String.join(" ", keys)));
        }
        for (RedisProcess master : masters()) {
            expectOk(master.command("CLUSTER SETSLOT " + slot + " NODE " + targetId));
        }
    }

    private static void expectOk(String reply) {
        if (!reply.startsWith("+OK")) {
            throw new IllegalStateException("not OK: " + reply);
        }
    }

    /** The strings of an array reply. */
    static List<String> bulkStrings(String reply) {
        List<String> values = new ArrayList<>();
        String[] lines = reply.split("\r\n");
        for (int i = 1; i < lines.length; i++) {
            if (lines[i].startsWith("$") && i + 1 < lines.length) {
                values.add(lines[++i]);
            }
        }
        return values;
    }

    private RedisProcess byAddress(String address) {
        int port = Integer.parseInt(address.substring(address.indexOf(':') + 1, address.contains("@") ? address.indexOf('@') : address.length()));
        return servers.stream().filter(s -> s.port() == port).findFirst().orElse(null);
    }

    private RedisProcess alive() {
        return servers.stream().filter(RedisProcess::isAlive).findFirst().orElseThrow();
    }

    private static List<String> nodes(RedisProcess server) throws IOException {
        String reply = server.command("CLUSTER NODES");
        // A bulk string: "$<length>", then the lines.
        return reply.lines().skip(1).filter(l -> !l.isBlank()).toList();
    }

    private static String replication(RedisProcess server, String name) {
        try {
            return server.info("replication", name);
        } catch (IOException x) {
            return null;
        }
    }

    static String field(RedisProcess server, String name) {
        try {
            for (String line : server.command("CLUSTER INFO").split("\r\n")) {
                if (line.startsWith(name + ":")) {
                    return line.substring(name.length() + 1);
                }
            }
            return null;
        } catch (IOException x) {
            return null;
        }
    }

    @Override
    public void close() throws Exception {
        for (RedisProcess server : servers) {
            try {
                server.close();
            } catch (Exception x) {
                // keep stopping the others
            }
        }
    }
}
