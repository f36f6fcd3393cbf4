package io.bayeux.server.internal;

import io.bayeux.server.spi.Endpoint;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Which connections may use a session: those of the browser that made it, known by its browser
 * cookie, so that a clientId alone is not enough. Thread-safe.
 *
 * <p>One exception keeps Faye's client working over WebSocket: it opens its WebSocket in
 * parallel with its long-polling handshake, so that socket carries no cookie (its 101 sets
 * another one). A connection that {@linkplain Endpoint#adoptsSessions() adopts sessions} may
 * therefore take over a session whose handshake sent no cookie (the reply set it): once, only
 * within {@link #ADOPTION_WINDOW_MILLIS} of the handshake, and only if the connection was opened
 * before the owner's cookie was first used with the session. From then on the adopting
 * connection's browser is admitted too, and that connection speaks for the owner's browser.
 * A session handshaken with a cookie, or over a WebSocket, can never be adopted; neither can
 * one by a connection opened after its owner used it, which is how a thief comes.
 */
final class BrowserBinding {
    /** How long after its handshake a session may be adopted: the time a client takes to move to its socket. */
    static final long ADOPTION_WINDOW_MILLIS = 10_000;
    private static final VarHandle ADOPTER;

    static {
        try {
            ADOPTER = MethodHandles.lookup().findVarHandle(BrowserBinding.class, "adopter", String.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    private final String owner;
    /** Scheduler time until which the session may be adopted; Long.MIN_VALUE when never. */
    private final long adoptableUntil;
    /** The browser of the connection that adopted the session, or null; set once, through ADOPTER. */
    private volatile String adopter;
    /** Scheduler time when the owner's cookie first came with the session; Long.MAX_VALUE until then. */
    private volatile long ownerSeenAt = Long.MAX_VALUE;

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
     * Whether a binding made by {@link #of} admits a message: as {@link #admits(String, String, boolean, long, long)};
     * a session that cannot be adopted admits its owner's browser and connections that speak for it.
     */
    static boolean admits(Object binding, String browser, String alias, boolean mayAdopt, long openedAt, long now) {
        if (binding instanceof BrowserBinding b) {
            return b.admits(browser, alias, mayAdopt, openedAt, now);
        }
        String owner = (String) binding;
        return owner.equals(browser) || owner.equals(alias);
    }

    String owner() {
        return owner;
    }

    /**
     * Whether a message from {@code browser} (the connection's cookie, or null), over a connection
     * that also speaks for {@code alias} (or null), that may adopt sessions or not and was opened
     * at {@code openedAt}, may use the session at {@code now}.
     */
    boolean admits(String browser, String alias, boolean mayAdopt, long openedAt, long now) {
        if (owner.equals(browser)) {
            if (ownerSeenAt == Long.MAX_VALUE) {
                ownerSeenAt = now;
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
        if (adopted == null && mayAdopt && now <= adoptableUntil && openedAt <= ownerSeenAt) {
            return ADOPTER.compareAndSet(this, null, browser) || browser.equals(adopter);
        }
        return browser.equals(adopted);
    }

    @Override
    public String toString() {
        String adopted = adopter;
        return "BrowserBinding[" + owner + (adopted == null ? "" : ", adopted by " + adopted) + "]";
    }
}
