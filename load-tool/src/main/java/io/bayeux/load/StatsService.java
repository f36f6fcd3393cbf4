package io.bayeux.load;

import io.bayeux.annotation.RemoteCall;
import io.bayeux.annotation.Service;
import io.bayeux.api.Message;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.server.internal.BayeuxServerImpl;
import io.bayeux.transport.NettyBayeuxServer;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.util.internal.PlatformDependent;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * The benchmark server's own figures, answered on {@code /service/load/stats} (a remote call):
 * sessions, messages waiting in their queues, channels, GC counts and pause time, heap in use, direct
 * memory in use, process CPU time, and the WebSocket frames written and flushes done by the
 * server's event loops ({@code framesWritten}, {@code flushes}: see
 * {@link NettyBayeuxServer#writeCounts()}) when it was given them; with {@link DeliveryTiming}
 * installed as the server's observer, the newest publish arrival flushed and the latest flush of
 * one ({@code deliveryNewestArrivalNanos}, {@code deliveryLastFlushNanos}, this process's
 * {@link System#nanoTime()}); the messages that met a full session queue since the start
 * ({@code queueOverflows}). The load tool asks before and after a run.
 */
@Service("load-stats")
public final class StatsService {
    public static final String TARGET = "load/stats";

    private final BayeuxServer bayeux;
    /** The server's write counts now, or null (a server not started yet, or none given). */
    private final Supplier<NettyBayeuxServer.WriteCounts> writes;
    private final OverflowCount overflows = new OverflowCount();

    public StatsService(BayeuxServer bayeux) {
        this(bayeux, () -> null);
    }

    /** @param writes the server's write counts now, or null when they are not known */
    public StatsService(BayeuxServer bayeux, Supplier<NettyBayeuxServer.WriteCounts> writes) {
        this.bayeux = bayeux;
        this.writes = writes;
        bayeux.addListener(overflows);
    }

    @RemoteCall(TARGET)
    public void stats(RemoteCall.Caller caller, Object data) {
        Map<String, Object> stats = snapshot(bayeux);
        NettyBayeuxServer.WriteCounts counts = writes.get();
        if (counts != null) {
            stats.put("framesWritten", counts.frames());
            stats.put("flushes", counts.flushes());
        }
        stats.put("queueOverflows", overflows.count.sum());
        caller.result(stats);
    }

    /** The figures now. */
    static Map<String, Object> snapshot(BayeuxServer bayeux) {
        long sessions = 0;
        long queued = 0;
        for (ServerSession session : bayeux.getSessions()) {
            if (!session.isLocalSession()) {
                sessions++;
                queued += session.getQueueSize();
            }
        }
        Map<String, Object> stats = new LinkedHashMap<>();
        stats.put("sessions", sessions);
        stats.put("queued", queued);
        stats.put("channels", (long) bayeux.getChannels().size());
        stats.putAll(processFigures());
        if (bayeux instanceof BayeuxServerImpl impl && impl.observer() instanceof DeliveryTiming timing) {
            stats.put("deliveryNewestArrivalNanos", timing.newestArrivalNanos());
            stats.put("deliveryLastFlushNanos", timing.lastFlushNanos());
        }
        return stats;
    }

    /** This JVM's part of the figures, whatever server it runs: GC counts and time, heap, direct memory, CPU time, pid. */
    static Map<String, Object> processFigures() {
        long gcCount = 0;
        long gcMillis = 0;
        Map<String, Object> collectors = new LinkedHashMap<>();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            gcCount += Math.max(0, gc.getCollectionCount());
            gcMillis += Math.max(0, gc.getCollectionTime());
            collectors.put(gc.getName(), Map.of("count", gc.getCollectionCount(), "millis", gc.getCollectionTime()));
        }
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        Map<String, Object> stats = new LinkedHashMap<>();
        stats.put("gcCount", gcCount);
        stats.put("gcMillis", gcMillis);
        stats.put("gc", collectors);
        stats.put("heapUsedBytes", heap.getUsed());
        putDirectMemory(stats);
        stats.put("cpuNanos", ProcessFigures.ownCpuNanos());
        stats.put("pid", ProcessHandle.current().pid());
        return stats;
    }

    /**
     * Counts the messages that meet a full session queue ({@code queueOverflows}), whatever the
     * server's overflow policy then does with them (the benchmark server drops the oldest): a run
     * that lost messages can tell whether the server turned them away. It lets the policy decide
     * (answers true: the answers of a queue's listeners are and-ed).
     */
    private static final class OverflowCount implements BayeuxServer.SessionListener, ServerSession.QueueMaxedListener {
        final LongAdder count = new LongAdder();

        @Override
        public void sessionAdded(ServerSession session, ServerMessage message) {
            if (!session.isLocalSession()) {
                session.addListener(this);
            }
        }

        @Override
        public void sessionRemoved(ServerSession session, ServerMessage message, boolean timeout) {
        }

        @Override
        public boolean queueMaxed(ServerSession session, Queue<ServerMessage> queue, ServerSession sender, Message message) {
            count.increment();
            return true;
        }
    }

    /**
     * {@code directBytes}: the JDK's direct buffers in use ({@code BufferPoolMXBean "direct"}: Netty's
     * pools allocate through it unless it frees without the JDK's cleaner) plus what Netty allocated
     * outside that accounting; {@code directBuffers}: the JDK's count; {@code nettyPoolDirectBytes}:
     * what Netty's default allocator holds of it (its pool keeps what it once allocated).
     */
    static void putDirectMemory(Map<String, Object> stats) {
        long direct = Math.max(0, PlatformDependent.usedDirectMemory());
        long buffers = 0;
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if ("direct".equals(pool.getName())) {
                direct += pool.getMemoryUsed();
                buffers += pool.getCount();
            }
        }
        stats.put("directBytes", direct);
        stats.put("directBuffers", buffers);
        if (ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider provider) {
            stats.put("nettyPoolDirectBytes", provider.metric().usedDirectMemory());
        }
    }
}
