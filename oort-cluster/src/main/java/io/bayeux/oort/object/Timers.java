package io.bayeux.oort.object;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/** The one daemon timer thread shared by the Oort objects and services of a JVM: its tasks are short. */
public final class Timers {
    private static final ScheduledThreadPoolExecutor SCHEDULER = new ScheduledThreadPoolExecutor(1, task -> {
        Thread thread = new Thread(task, "oort-objects-timer");
        thread.setDaemon(true);
        return thread;
    });

    static {
        SCHEDULER.setRemoveOnCancelPolicy(true);
    }

    private Timers() {
    }

    public static ScheduledExecutorService scheduler() {
        return SCHEDULER;
    }
}
