package io.bayeux.server.internal;

import io.bayeux.server.spi.Endpoint;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Which connections may use a session: those of the browser that made it, known by its browser
 * cookie, so that a clientId alone is not enough. Thread-safe.
 *
 * <p>One exception keeps Faye's client working over WebSocket: it opens its WebSocket in
 * parallel with its long-polling handshake, so that socket carries no cookie (its 101 sets
 * another one). A connection that {@linkplain Endpoint#adoptsSessions() adopts sessions} may
 * therefore take over a session whose handshake sent no cookie (the reply set it): once, only
 * within {@link #ADOPTION_WINDOW_MILLIS} of the handshake, and only if the connection was opened
 * before the owner's cookie was first used with the session, and at most that long before the
 * handshake. From then on the adopting connection's browser is admitted too, and that connection
 * speaks for the owner's browser.
 * A session handshaken with a cookie, or over a WebSocket, can never be adopted; neither can
 * one by a connection opened after its owner used it, which is how a thief comes.
 *
 * <p>"Opened" is when the server accepted the connection, and "after its owner used it" is
 * decided in the order the server accepts connections: the owner's first use is stamped only
 * once the connections that reached the server before it have been accepted (the transport runs
 * the stamp on its accept loop, see {@link BayeuxServerImpl#afterAccepts(Executor)}). Faye's
 * socket is connected before its handshake is sent, so it is always accepted before the owner's
 * first use is stamped, however late a busy client, event loop or accept loop gets to it.
 */
final class BrowserBinding {
    /** How long after its handshake a session may be adopted: the time a client takes to move to its socket. */
    static final long ADOPTION_WINDOW_MILLIS = 10_000;
    /** The longest the owner's first use waits for the accept loop to stamp it. */
    static final long STAMP_WAIT_MILLIS = 1_000;
    /** The longest the owner's first use waits for the clock to move past its stamp. */
    private static final long TICK_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    /** How long it sleeps between two looks at the clock meanwhile. */
    private static final long TICK_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(50);
    /** {@link #ownerSeenAt} while the owner has not used the session. */
    private static final long UNSEEN = Long.MAX_VALUE;
    /** {@link #ownerSeenAt} while the stamp of the owner's first use waits for the accept loop. */
    private static final long STAMPING = Long.MAX_VALUE - 1;
    private static final VarHandle ADOPTER;
    private static final VarHandle OWNER_SEEN_AT;

    static {
        try {
            ADOPTER = MethodHandles.lookup().findVarHandle(BrowserBinding.class, "adopter", String.class);
            OWNER_SEEN_AT = MethodHandles.lookup().findVarHandle(BrowserBinding.class, "ownerSeenAt", long.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    private final String owner;
    /** Scheduler time until which the session may be adopted; Long.MIN_VALUE when never. */
    private final long adoptableUntil;
    /** The browser of the connection that adopted the session, or null; set once, through ADOPTER. */
    private volatile String adopter;
    /**
     * Scheduler time when the owner's cookie first came with the session, stamped after the
     * connections accepted before it; UNSEEN until then, STAMPING meanwhile. Set through OWNER_SEEN_AT.
     */
    private volatile long ownerSeenAt = UNSEEN;

    private BrowserBinding(String owner, long adoptableUntil) {
        this.owner = owner;
        this.adoptableUntil = adoptableUntil;
    }

    /**
     * The binding of a session handshaken over {@code endpoint} at {@code now}: null when it
     * names no browser; the owner's browser id itself when the session can never be adopted
     * (most sessions: they keep no binding object); else a {@code BrowserBinding}. Read it
     * with {@link #admits(Object, String, String, boolean, long, long)} and {@link #owner(Object)}.
     */
    static Object of(Endpoint endpoint, long now) {
        String owner = endpoint.sessionBrowserId();
        if (owner == null) {
            return null;
        }
        // Adoptable only when the handshake sent no cookie (the reply set it) over a request
        // that cannot push: a session made on a WebSocket belongs to that connection's browser.
        boolean adoptable = endpoint.browserId() == null && !endpoint.canPush();
        return adoptable ? new BrowserBinding(owner, now + ADOPTION_WINDOW_MILLIS) : owner;
    }

    /** The owner's browser id of a binding made by {@link #of}. */
    static String owner(Object binding) {
        return binding instanceof BrowserBinding b ? b.owner : (String) binding;
    }

    /**
     * Whether a binding made by {@link #of} admits a message, the owner's first use stamped at
     * {@code now}: as {@link #admits(Object, String, String, boolean, long, long, LongSupplier, Executor)}.
     */
    static boolean admits(Object binding, String browser, String alias, boolean mayAdopt, long openedAt, long now) {
        return admits(binding, browser, alias, mayAdopt, openedAt, now, () -> now, Runnable::run);
    }

    /**
     * Whether a binding made by {@link #of} admits a message: as
     * {@link #admits(String, String, boolean, long, long, LongSupplier, Executor)}; a session that
     * cannot be adopted admits its owner's browser and connections that speak for it.
     */
    static boolean admits(Object binding, String browser, String alias, boolean mayAdopt, long openedAt, long now,
                          LongSupplier clock, Executor afterAccepts) {
        if (binding instanceof BrowserBinding b) {
            return b.admits(browser, alias, mayAdopt, openedAt, now, clock, afterAccepts);
        }
        String owner = (String) binding;
        return owner.equals(browser) || owner.equals(alias);
    }

    /**
     * Whether a connection from {@code browser} (its cookie, or null) that also speaks for
     * {@code alias} (or null) is the session's own browser or the one that adopted it: as
     * {@link #admits(Object, String, String, boolean, long, long)} without adopting or stamping
     * anything, for a session that is gone. A binding of null (no browser) belongs to anyone.
     */
    static boolean belongsTo(Object binding, String browser, String alias) {
        if (binding == null) {
            return true;
        }
        String owner = owner(binding);
        if (owner.equals(browser) || owner.equals(alias)) {
            return true;
        }
        return browser != null && binding instanceof BrowserBinding b && browser.equals(b.adopter);
    }

    /**
     * Stamps the owner's first use after the connections accepted before it, and waits (at most
     * {@link #STAMP_WAIT_MILLIS}) for the stamp, then for the clock to pass it: the owner's reply
     * goes out after both, so that a connection opened once the owner heard back is always stamped
     * later. Only sessions that may be adopted wait, once; an accept loop that does not answer in
     * time is not waited for.
     */
    private void stampOwnerSeen(LongSupplier clock, Executor afterAccepts) {
        CountDownLatch stamped = new CountDownLatch(1);
        afterAccepts.execute(() -> {
            OWNER_SEEN_AT.compareAndSet(this, STAMPING, clock.getAsLong());
            stamped.countDown();
        });
        boolean interrupted = false;
        try {
            if (!stamped.await(STAMP_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                OWNER_SEEN_AT.compareAndSet(this, STAMPING, clock.getAsLong());
            }
        } catch (InterruptedException x) {
            interrupted = true;
            OWNER_SEEN_AT.compareAndSet(this, STAMPING, clock.getAsLong());
        }
        // The clock counts milliseconds: a connection accepted within the stamp's millisecond
        // would count as opened before the owner's first use, though the client opened it after
        // the reply. The reply waits for the next millisecond (a clock that does not move, as a
        // test's, is waited for at most TICK_WAIT_NANOS).
        long seen = ownerSeenAt;
        long giveUpAt = System.nanoTime() + TICK_WAIT_NANOS;
        while (clock.getAsLong() <= seen && System.nanoTime() - giveUpAt < 0) {
            LockSupport.parkNanos(TICK_PARK_NANOS);
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    String owner() {
        return owner;
    }

    /**
     * Whether a message from {@code browser} (the connection's cookie, or null), over a connection
     * that also speaks for {@code alias} (or null), that may adopt sessions or not and was opened
     * at {@code openedAt}, may use the session at {@code now}. The owner's first use is stamped
     * with {@code clock} by a task given to {@code afterAccepts}.
     */
    boolean admits(String browser, String alias, boolean mayAdopt, long openedAt, long now, LongSupplier clock, Executor afterAccepts) {
        if (owner.equals(browser)) {
            if (ownerSeenAt == UNSEEN && OWNER_SEEN_AT.compareAndSet(this, UNSEEN, STAMPING)) {
                stampOwnerSeen(clock, afterAccepts);
            }
            return true;
        }
        if (owner.equals(alias)) {
            return true;
        }
        if (browser == null) {
            return false;
        }
        String adopted = adopter;
        // Opened before the owner's first use, and not long before the handshake: a socket kept
        // open in advance, waiting for some clientId to leak, adopts nothing.
        boolean openedWithTheHandshake = openedAt <= ownerSeenAt && openedAt >= adoptableUntil - 2 * ADOPTION_WINDOW_MILLIS;
        if (adopted == null && mayAdopt && now <= adoptableUntil && openedWithTheHandshake) {
            return ADOPTER.compareAndSet(this, null, browser) || browser.equals(adopter);
        }
        return browser.equals(adopted);
    }

    @Override
    public String toString() {
        String adopted = adopter;
        long seen = ownerSeenAt;
        return "BrowserBinding[" + owner + (adopted == null ? "" : ", adopted by " + adopted)
                + ", adoptable until " + adoptableUntil + (seen < STAMPING ? ", owner seen at " + seen : "") + "]";
    }
}
