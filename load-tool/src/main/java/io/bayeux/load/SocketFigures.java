package io.bayeux.load;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * What the kernel tells of a server's TCP connections on this machine: the bytes and segments
 * it sent on each, read with {@code ss -ti} (iproute2) for the sockets whose local port is one
 * of the servers'. Two samples give what the server put on the wire in between, whatever its
 * kind: TCP segments count how its writes were coalesced, frames included. A connection opened
 * in between counts from zero; one closed in between is missed (the figures can be low, never
 * high). Null where {@code ss} cannot be run.
 */
final class SocketFigures {
    private static final Pattern BYTES_SENT = Pattern.compile("\\bbytes_sent:(\\d+)");
    private static final Pattern SEGS_OUT = Pattern.compile("\\bsegs_out:(\\d+)");

    private SocketFigures() {
    }

    /** Bytes and segments sent, by connection (its local and peer addresses), at one moment. */
    record Sample(Map<String, long[]> sockets) {
        /** What the connections sent since {@code earlier}. */
        RunResult.Wire since(Sample earlier, long deliveries) {
            long bytes = 0;
            long segments = 0;
            for (Map.Entry<String, long[]> socket : sockets.entrySet()) {
                long[] before = earlier.sockets.getOrDefault(socket.getKey(), new long[2]);
                bytes += Math.max(0, socket.getValue()[0] - before[0]);
                segments += Math.max(0, socket.getValue()[1] - before[1]);
            }
            return new RunResult.Wire(bytes, segments, deliveries == 0 ? null : (double) bytes / deliveries,
                    deliveries == 0 ? null : (double) segments / deliveries);
        }
    }

    /** The sockets of the servers at {@code urls} that run on this machine, now; null when ss cannot tell. */
    static Sample sample(List<URI> urls) {
        String ports = urls.stream().map(SocketFigures::port).distinct()
                .map(port -> "sport = :" + port).collect(Collectors.joining(" or "));
        String out = run(List.of("ss", "-tinH", "state", "established", "( " + ports + " )"));
        return out == null ? null : parse(out);
    }

    /** Reads {@code ss -tinH state established} output: a line of addresses, then a line of figures, per socket. */
    static Sample parse(String ss) {
        Map<String, long[]> sockets = new HashMap<>();
        String key = null;
        for (String line : ss.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            if (!Character.isWhitespace(line.charAt(0))) {
                String[] fields = line.trim().split("\\s+");
                key = fields.length >= 4 ? fields[2] + " " + fields[3] : null;
            } else if (key != null) {
                sockets.put(key, new long[] {figure(BYTES_SENT, line), figure(SEGS_OUT, line)});
                key = null;
            }
        }
        return new Sample(sockets);
    }

    private static long figure(Pattern pattern, String line) {
        Matcher matcher = pattern.matcher(line);
        return matcher.find() ? Long.parseLong(matcher.group(1)) : 0;
    }

    private static int port(URI url) {
        if (url.getPort() >= 0) {
            return url.getPort();
        }
        return "https".equals(url.getScheme()) || "wss".equals(url.getScheme()) ? 443 : 80;
    }

    private static String run(List<String> command) {
        try {
            Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            byte[] out = process.getInputStream().readAllBytes();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return null;
            }
            return process.exitValue() == 0 ? new String(out, StandardCharsets.UTF_8) : null;
        } catch (IOException x) {
            return null;
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
