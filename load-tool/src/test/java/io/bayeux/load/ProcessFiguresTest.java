package io.bayeux.load;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProcessFiguresTest {
    @Test
    void thisJvmsCompilerThreadsAreFoundAndTheirCpuIsAPartOfTheProcesss() throws Exception {
        long pid = ProcessHandle.current().pid();
        ProcessFigures.CpuSample before = ProcessFigures.cpuSample(pid);
        assertNotNull(before, "read from /proc");
        assertFalse(before.compilerNanos().isEmpty(), "HotSpot runs JIT compiler threads: " + before);
        // Work that gets compiled, so that the compilers and the process both count some CPU.
        long sum = 0;
        long deadline = System.nanoTime() + 300_000_000L;
        while (System.nanoTime() < deadline) {
            sum += Long.toString(sum).hashCode();
        }
        ProcessFigures.CpuSample after = ProcessFigures.cpuSample(pid);
        long process = after.processNanos() - before.processNanos();
        Long compilers = after.compilerNanosSince(before);
        assertNotNull(compilers);
        assertTrue(process > 0, "the process ran: " + sum);
        assertTrue(compilers >= 0 && compilers <= process + 10_000_000L, compilers + " of " + process);
    }

    @Test
    void aCompilerThreadThatEndedCountsForNothingAndANewOneFromZero() {
        ProcessFigures.CpuSample earlier = new ProcessFigures.CpuSample(1_000, Map.of(11L, 300L, 12L, 200L));
        // 11 used 50 more; 12 ended; 13 started and used 70.
        ProcessFigures.CpuSample later = new ProcessFigures.CpuSample(2_000, Map.of(11L, 350L, 13L, 70L));
        assertEquals(120L, later.compilerNanosSince(earlier));
        assertNull(new ProcessFigures.CpuSample(2_000, null).compilerNanosSince(earlier), "threads not read");
    }

    @Test
    void aProcessThatIsNotThereHasNoSample() {
        assertNull(ProcessFigures.cpuSample(Long.MAX_VALUE));
    }
}
