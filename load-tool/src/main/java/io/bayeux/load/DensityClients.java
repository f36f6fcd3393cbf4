package io.bayeux.load;

import java.time.Duration;
import java.util.Map;

/**
 * The density mode's idle clients as the run drives them: in this process ({@link IdleClients})
 * or spread over several ({@link ClientProcesses}). Called by one thread, the run's.
 */
interface DensityClients extends AutoCloseable {
    /**
     * Opens clients until {@code total} are ready, and returns how long it took in nanoseconds;
     * throws {@link BenchmarkException} when one is refused or they are not all ready within
     * {@code timeout}.
     */
    long open(int total, Duration timeout) throws InterruptedException;

    /** Starts counting arrivals of the broadcast whose {@code data.id} is {@code id}. */
    void expectBroadcast(String id) throws InterruptedException;

    /**
     * Waits until every ready client got the expected broadcast; returns the
     * {@link System#nanoTime} of the last arrival (on Linux the monotonic clock, the same in
     * every process of the machine), or -1 on timeout.
     */
    long awaitBroadcast(Duration timeout) throws InterruptedException;

    /** Arrivals of the expected broadcast, as counted by the last {@link #awaitBroadcast}. */
    int arrivals();

    /** Every client disconnects and closes; returns the count closed by force after {@code timeout}. */
    int leaveAll(Duration timeout) throws InterruptedException;

    /** Clients ready now (after {@link #open}). */
    int ready();

    /** How many clients each source address had, by address. */
    Map<String, Integer> perSourceAddress();

    @Override
    void close();
}
