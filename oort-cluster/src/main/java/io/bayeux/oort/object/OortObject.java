package io.bayeux.oort.object;

import io.bayeux.oort.CometListener;
import io.bayeux.oort.Oort;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A named value shared by the nodes of an Oort cloud: each node owns one part (its
 * {@link Info}), changes only its own, and holds a copy of every other node's part.
 * {@code merge} combines the parts, e.g. the sum of per-node counters.
 *
 * <p>Wire format (CometD 8's): a change is published on {@code /oort/objects/<name>}
 * (observed by every node) with the fields {@code oort.info.url}, {@code oort.info.name},
 * {@code oort.info.version} and either the whole value ({@code oort.info.object}) or, for
 * containers, a delta ({@code oort.info.type} and its own fields). As in CometD 8: a node that
 * subscribes to the broadcasts is sent this node's whole part on the broadcast channel then (so
 * that a change made while it was subscribing is not lost); when a node joins, each side pushes
 * its whole part on {@code /service/oort/objects/<name>} ({@code oort.info.action:
 * "oort.object.push"}); a push, or the first whole part of a node, is answered with a push
 * carrying {@code oort.info.peer} (the URL of the node answered, which does not answer again);
 * {@code "oort.object.pull"} asks a node to push its part.
 *
 * <p>Consistency: each part's version starts from the clock (milliseconds times 1000, so a
 * restarted object outranks its previous run) and grows by one per change. A whole value is applied when
 * its version is newer than the one held; a delta only when it is the next one; a gap (or a
 * delta for a part not held yet) makes this node pull the owner's whole part. A node that
 * leaves the cloud ({@link CometListener#cometLeft}) has its part removed here, and the
 * listeners are told; a part of a node that is not (or no longer) joined is removed after the
 * failure timeout, so that a message still in flight from a dead node cannot resurrect it,
 * unless this node's link to that node is connected (it is alive, and joins once its own link
 * to this node is back).
 *
 * <p>Values are treated as immutable: a change replaces the value (containers copy it).
 * Thread-safe; listeners run after the lock is released, in the order the changes were
 * applied: on the thread that applied the change, unless another thread is telling them of an
 * earlier one (that thread then tells of this one too, right after). One thread at a time tells
 * them, so a listener that keeps a tally (as {@code OortList}'s element listeners may) never
 * sees a later change of a part before an earlier one. A change made with no other under way is
 * told before the method that made it returns; one made by a listener, after that listener returns.
 *
 * @param <T> the type of the value
 */
public class OortObject<T> implements Iterable<Info<T>> {
    public static final String OORT_OBJECTS_CHANNEL = "/oort/objects";
    public static final String ACTION_PUSH = "oort.object.push";
    public static final String ACTION_PULL = "oort.object.pull";

    protected final Logger logger;
    private final Oort oort;
    private final String name;
    private final Factory<T> factory;
    private final String broadcastChannel;
    private final String serviceChannel;
    private final List<Listener<T>> listeners = new CopyOnWriteArrayList<>();
    private final ObjectChannels channels;
    private final OrderedNotifier notifier;

    /** Guarded by this: each node's part, by its URL. */
    private final Parts<T> parts;
    /** Guarded by this. */
    private boolean running;
    private volatile ScheduledFuture<?> sweep;
    /** When ({@link System#nanoTime()}) the last sweep of the others' stale parts started; 0 before the first. */
    private volatile long lastSweepNanos;

    public OortObject(Oort oort, String name, Factory<T> factory) {
        this.oort = Objects.requireNonNull(oort, "oort");
        this.name = Objects.requireNonNull(name, "name");
        this.factory = Objects.requireNonNull(factory, "factory");
        if (name.isEmpty() || name.contains("*") || name.startsWith("/") || name.endsWith("/")) {
            throw new IllegalArgumentException("Bad object name: " + name);
        }
        this.broadcastChannel = OORT_OBJECTS_CHANNEL + "/" + name;
        this.serviceChannel = "/service" + broadcastChannel;
        this.logger = LoggerFactory.getLogger(getClass().getName() + "." + name);
        this.parts = new Parts<>(oort.getURL());
        this.channels = new ObjectChannels(this, logger);
        this.notifier = new OrderedNotifier(logger, this);
    }

    public Oort getOort() {
        return oort;
    }

    public String getName() {
        return name;
    }

    public Factory<T> getFactory() {
        return factory;
    }

    /** {@code /oort/objects/<name>}: where changes are broadcast. */
    public String getChannelName() {
        return broadcastChannel;
    }

    /** {@code /service/oort/objects/<name>}: where whole parts are pushed to one node. */
    public String getServiceChannelName() {
        return serviceChannel;
    }

    /**
     * Starts the object (start the {@link Oort} first): this node's part is the factory's
     * default value; the nodes already joined are asked for theirs and told of this one.
     */
    public void start() {
        synchronized (this) {
            if (running) {
                throw new IllegalStateException("Already started: " + this);
            }
            parts.clear();
            // Versions start from the clock (in thousandths of a millisecond), so that an object
            // restarted at the same URL outranks what the other nodes still hold of its previous run.
            long initial = System.currentTimeMillis() * 1000;
            parts.put(oort.getURL(), new Info<>(oort.getURL(), oort.getURL(), name, factory.newObject(null), initial));
            running = true;
        }
        channels.open();
        // After the subscriptions (the same link, in order): the others' parts come back as pushes.
        for (String url : oort.getKnownComets()) {
            channels.push(url, null);
        }
        long period = Math.max(100, oort.getFailureTimeout().toMillis() / 4);
        sweep = Timers.scheduler().scheduleWithFixedDelay(this::sweep, period, period, TimeUnit.MILLISECONDS);
    }

    /** Stops the object: it no longer shares nor receives; the parts are dropped (listeners are not told). */
    public void stop() {
        synchronized (this) {
            if (!running) {
                return;
            }
            running = false;
            parts.clear();
        }
        ScheduledFuture<?> task = sweep;
        if (task != null) {
            task.cancel(false);
        }
        channels.close();
    }

    public synchronized boolean isRunning() {
        return running;
    }

    // --- reading

    /** The part of the node at {@code oortURL}, or null. */
    public synchronized Info<T> getInfo(String oortURL) {
        Parts.Part<T> part = parts.get(oortURL);
        return part == null ? null : part.info;
    }

    /** This node's part. */
    public Info<T> getLocalInfo() {
        return getInfo(oort.getURL());
    }

    /** This node's value. */
    public T getLocal() {
        Info<T> info = getLocalInfo();
        return info == null ? null : info.getObject();
    }

    /** Every part held here, this node's first. */
    public synchronized List<Info<T>> getInfos() {
        return parts.infos();
    }

    @Override
    public Iterator<Info<T>> iterator() {
        return getInfos().iterator();
    }

    /** Combines every part held here. */
    public <R> R merge(Merger<T, R> merger) {
        return merger.merge(getInfos());
    }

    public void addListener(Listener<T> listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    public void removeListener(Listener<T> listener) {
        listeners.remove(listener);
    }

    // --- changing this node's part

    /**
     * Replaces this node's value and shares it.
     *
     * @return the previous value
     */
    public T setAndShare(T newObject) {
        Objects.requireNonNull(newObject, "newObject");
        return updateAndShare(current -> new Change<>(newObject, current));
    }

    /**
     * Changes this node's value atomically and shares the new value whole.
     *
     * @param update from the current value to the change (its new value, null for no change, and a result)
     * @return the change's result
     */
    protected <R> R updateAndShare(Function<T, Change<T, R>> update) {
        Info<T> oldInfo;
        Info<T> newInfo;
        Change<T, R> change;
        synchronized (this) {
            Parts.Part<T> part = localPart();
            oldInfo = part.info;
            change = update.apply(oldInfo.getObject());
            if (change.object() == null) {
                return change.result();
            }
            newInfo = new Info<>(oort.getURL(), oort.getURL(), name, change.object(), oldInfo.getVersion() + 1);
            part.info = newInfo;
            Map<String, Object> message = header(newInfo.getVersion());
            message.put(Info.OBJECT_FIELD, serialize(change.object()));
            // Published under the lock: the versions go out in order.
            publish(message);
            queueUpdated(oldInfo, newInfo, null);
        }
        notifyListeners();
        return change.result();
    }

    /**
     * Applies a delta to this node's value atomically and shares the delta (not the whole value).
     *
     * @param delta the delta's fields ({@link Info#TYPE_FIELD} and the type's own)
     * @return what {@link #applyDelta} returned, or null when it changed nothing
     */
    protected Object shareDelta(Map<String, Object> delta) {
        List<Consumer<Info<T>>> events = new ArrayList<>();
        Info<T> oldInfo;
        Info<T> newInfo;
        Delta<T> applied;
        synchronized (this) {
            Parts.Part<T> part = localPart();
            oldInfo = part.info;
            applied = applyDelta(oldInfo, delta, events);
            if (applied == null) {
                return null;
            }
            newInfo = new Info<>(oort.getURL(), oort.getURL(), name, applied.object(), oldInfo.getVersion() + 1);
            part.info = newInfo;
            Map<String, Object> message = header(newInfo.getVersion());
            message.putAll(delta);
            publish(message);
            queueUpdated(oldInfo, newInfo, events);
        }
        notifyListeners();
        return applied.result();
    }

    /**
     * Containers override this: the value after {@code delta} (a copy: values are immutable),
     * with the events to fire (each given the part after the change); null when the delta changes
     * nothing (it is then not shared). Runs under the object's lock: no user code here, put it in {@code events}.
     */
    protected Delta<T> applyDelta(Info<T> current, Map<String, Object> delta, List<Consumer<Info<T>>> events) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " has no deltas: " + delta);
    }

    /**
     * Containers override this to tell their item listeners what a whole value changed: a node's
     * part arrived whole ({@code oldInfo} null: a join, a late start, a partition healed),
     * replaced whole (a snapshot after a gap, a restart, {@link #setAndShare}). Runs after the
     * {@link Listener}s, outside the lock, in the order of the changes (see the class comment).
     */
    protected void onPartReplaced(Info<T> oldInfo, Info<T> newInfo) {
    }

    /** As {@link #onPartReplaced}, for a node's part removed (the node left, died or is cut off). */
    protected void onPartRemoved(Info<T> info) {
    }

    /**
     * Under the lock: queues telling the listeners that a part changed, then the element or
     * entry listeners of what changed: the delta's {@code events}, or, for a part replaced whole
     * ({@code events} null), its difference ({@link #onPartReplaced}).
     */
    private void queueUpdated(Info<T> oldInfo, Info<T> newInfo, List<Consumer<Info<T>>> events) {
        notifier.add(() -> {
            tell(listener -> listener.onUpdated(oldInfo, newInfo));
            if (events == null) {
                onPartReplaced(oldInfo, newInfo);
            } else {
                fire(events, newInfo);
            }
        });
    }

    /** Outside the lock: tells the listeners of the changes applied so far, in order (see {@link OrderedNotifier}). */
    private void notifyListeners() {
        notifier.run();
    }

    private void fire(List<Consumer<Info<T>>> events, Info<T> newInfo) {
        for (Consumer<Info<T>> event : events) {
            event.accept(newInfo);
        }
    }

    /** The value as sent: by default itself (it must then be JSON-able). */
    protected Object serialize(T object) {
        return object;
    }

    private Parts.Part<T> localPart() {
        if (!running) {
            throw new IllegalStateException("Not started: " + this);
        }
        return parts.get(oort.getURL());
    }

    private Map<String, Object> header(long version) {
        Map<String, Object> message = new LinkedHashMap<>();
        message.put(Info.OORT_URL_FIELD, oort.getURL());
        message.put(Info.NAME_FIELD, name);
        message.put(Info.VERSION_FIELD, version);
        return message;
    }

    private void publish(Map<String, Object> message) {
        channels.broadcast(message);
    }

    // --- other nodes

    /** This node's whole part as a message (url, name, version, object), or null when stopped. */
    synchronized Map<String, Object> localInfo() {
        Parts.Part<T> part = running ? parts.get(oort.getURL()) : null;
        if (part == null) {
            return null;
        }
        Map<String, Object> message = header(part.info.getVersion());
        message.put(Info.OBJECT_FIELD, serialize(part.info.getObject()));
        return message;
    }

    /** A message from another node (or this node's own broadcast, ignored). */
    void received(Map<String, Object> data) {
        if (!(data.get(Info.OORT_URL_FIELD) instanceof String url) || !name.equals(data.get(Info.NAME_FIELD))) {
            return;
        }
        String localURL = oort.getURL();
        Object action = data.get(Info.ACTION_FIELD);
        if (ACTION_PULL.equals(action)) {
            if (!url.equals(localURL)) {
                channels.push(url, url);
            }
            return;
        }
        if (url.equals(localURL) || !(data.get(Info.VERSION_FIELD) instanceof Number number)) {
            return;
        }
        long version = number.longValue();
        Object type = data.get(Info.TYPE_FIELD);
        List<Consumer<Info<T>>> events = new ArrayList<>();
        boolean reply = false;
        boolean gap = false;
        Info<T> oldInfo = null;
        Info<T> newInfo = null;
        synchronized (this) {
            if (!running) {
                return;
            }
            Parts.Part<T> part = parts.get(url);
            // As CometD: a push not marked as the answer to this node's own is always answered, and
            // so is the first whole part of a node (however it came: a push, the part sent on
            // subscription, a broadcast).
            reply = !localURL.equals(data.get(Info.PEER_FIELD)) && (ACTION_PUSH.equals(action) || part == null && type == null);
            if (type == null) {
                if (part == null || version > part.info.getVersion()) {
                    T object = factory.newObject(data.get(Info.OBJECT_FIELD));
                    newInfo = new Info<>(localURL, url, name, object, version);
                    if (part == null) {
                        parts.put(url, newInfo);
                    } else {
                        oldInfo = part.info;
                        part.info = newInfo;
                    }
                }
            } else if (part == null || version > part.info.getVersion() + 1) {
                gap = true;
            } else if (version == part.info.getVersion() + 1) {
                Delta<T> applied = applyDelta(part.info, data, events);
                oldInfo = part.info;
                newInfo = new Info<>(localURL, url, name, applied == null ? oldInfo.getObject() : applied.object(), version);
                part.info = newInfo;
            }
            if (newInfo != null) {
                queueUpdated(oldInfo, newInfo, type == null ? null : events);
            }
        }
        notifyListeners();
        if (reply) {
            channels.push(url, url);
        }
        if (gap) {
            logger.debug("Version {} of {} from {}: a gap, pulling", version, name, url);
            channels.pull(url);
        }
    }

    void removePart(String oortURL, String why) {
        Info<T> removed;
        synchronized (this) {
            if (oortURL.equals(oort.getURL())) {
                return;
            }
            Parts.Part<T> part = parts.remove(oortURL);
            removed = part == null ? null : part.info;
            if (removed != null) {
                notifier.add(() -> {
                    logger.debug("Removed the part of {} ({}): {}", oortURL, why, removed);
                    tell(listener -> listener.onRemoved(removed));
                    onPartRemoved(removed);
                });
            }
        }
        notifyListeners();
    }

    /**
     * Removes the parts of nodes that have not been joined for a failure timeout, unless this
     * node's link to them is connected: such a node is alive and on its way to join (after a
     * partition, one direction of the link may come back seconds before the other, and the part
     * arrives as soon as this node's link subscribes again).
     */
    /**
     * When ({@link System#nanoTime()}) the last sweep started, or 0 before the first: it removes
     * the parts of nodes not joined for {@code failureTimeout}, unless this node's link to them
     * is connected. Every {@code failureTimeout / 4} (at least 100 ms) while running.
     */
    public long lastSweepNanos() {
        return lastSweepNanos;
    }

    private void sweep() {
        Set<String> known = oort.getKnownComets();
        long now = System.nanoTime();
        lastSweepNanos = now;
        long limit = oort.getFailureTimeout().toNanos();
        List<String> stale;
        synchronized (this) {
            stale = parts.stale(known, now, limit);
        }
        stale.removeIf(channels::linked);
        stale.forEach(url -> removePart(url, "not joined"));
    }

    /** Tells each listener; one that throws is logged and the next is told. */
    private void tell(Consumer<Listener<T>> event) {
        for (Listener<T> listener : listeners) {
            try {
                event.accept(listener);
            } catch (RuntimeException x) {
                logger.warn("Listener {} failed", listener, x);
            }
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + name + "@" + oort.getURL() + "]";
    }

    /** A change of a whole value: the new value (null: no change) and what the caller gets. */
    protected record Change<T, R>(T object, R result) {
    }

    /** A delta applied: the new value and what the caller gets. */
    protected record Delta<T>(T object, Object result) {
    }

    /** Makes values: from null, the default; else from what arrived (JSON: maps, lists, numbers, strings). */
    @FunctionalInterface
    public interface Factory<T> {
        T newObject(Object representation);
    }

    /** Combines the parts. */
    @FunctionalInterface
    public interface Merger<T, R> {
        R merge(Collection<Info<T>> infos);
    }

    /** Told of changes to any part, local or remote. */
    public interface Listener<T> {
        /** A part changed; {@code oldInfo} is null for a node's first part. */
        default void onUpdated(Info<T> oldInfo, Info<T> newInfo) {
        }

        /** A node's part was removed: the node left the cloud. */
        default void onRemoved(Info<T> info) {
        }
    }
}
