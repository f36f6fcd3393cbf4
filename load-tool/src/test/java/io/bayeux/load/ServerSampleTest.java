package io.bayeux.load;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class ServerSampleTest {
    @Test
    void socketMemoryIsTheTcpLinesMemInPages(@TempDir Path dir) throws Exception {
        Path sockstat = dir.resolve("sockstat");
        Files.writeString(sockstat, """
                sockets: used 38013
                TCP: inuse 38003 orphan 0 tw 12 alloc 38005 mem 1523
                UDP: inuse 0 mem 7
                """);
        assertEquals(1523L * 4096, ServerSample.socketMemoryBytes(sockstat));
        assertNull(ServerSample.socketMemoryBytes(dir.resolve("missing")));
    }

    @Test
    void perConnectionIsTheGrowthInKibDividedByTheConnections() {
        ServerSample empty = new ServerSample(1L, 12L, 8L << 20, 1L << 20, 600L << 20, null);
        ServerSample full = new ServerSample(1001L, 1013L, (8L << 20) + 3 * 1024 * 1000, (1L << 20) + 1024 * 1000, (600L << 20) + 5 * 1024 * 1000, 0L);
        ServerSample.PerConnection per = full.perConnectionOver(empty, 1000);
        assertEquals(3.0, per.heapKiB());
        assertEquals(1.0, per.directKiB());
        assertEquals(5.0, per.rssKiB());
        assertNull(per.socketKiB(), "not read before: no figure");
    }
}
