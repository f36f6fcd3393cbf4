package io.bayeux.oort;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** What a test started (nodes, clients, proxies, processes), closed after it in reverse order, each at best effort. */
public final class Closing {
    private final List<AutoCloseable> all = Collections.synchronizedList(new ArrayList<>());

    /** Closes {@code closeable} after the test, before whatever was added earlier. */
    public void add(AutoCloseable closeable) {
        all.add(closeable);
    }

    /** Closes {@code closeable} after everything else. */
    public void addToCloseLast(AutoCloseable closeable) {
        all.add(0, closeable);
    }

    /** Closes everything added, the last first; a failure to close one does not stop the others. */
    public void closeAll() {
        List<AutoCloseable> reversed;
        synchronized (all) {
            reversed = new ArrayList<>(all);
            all.clear();
        }
        Collections.reverse(reversed);
        for (AutoCloseable closeable : reversed) {
            try {
                closeable.close();
            } catch (Exception ignored) {
                // Best effort: the next test starts on fresh ports either way.
            }
        }
    }
}
