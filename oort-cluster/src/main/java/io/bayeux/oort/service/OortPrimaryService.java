package io.bayeux.oort.service;

import io.bayeux.oort.Oort;

import java.util.Objects;
import java.util.TreeSet;

/**
 * An {@link OortService} whose resources all live on one node, the primary.
 * {@link #forwardToPrimary} sends a request there; while no primary is joined, it fails at once
 * with {@link #NO_PRIMARY} (the caller's {@code onForwardFailed} runs before it returns).
 *
 * <p>The primary is either fixed ({@code primaryOortURL}, as in CometD: when that node dies,
 * requests fail until it is back), or elected ({@link #elected}): the node with the smallest
 * URL among this node and the nodes joined to it. The election needs no messages and is
 * deterministic: once the mesh is whole, every node elects the same primary; while a
 * partition lasts, each side elects its own (and this node's requests never wait for the other side).
 *
 * @param <R> the result type
 * @param <C> the type of the caller's opaque context
 */
public abstract class OortPrimaryService<R, C> extends OortService<R, C> {
    /** The failure when no primary is joined. */
    public static final String NO_PRIMARY = "No primary node";

    private final String primaryOortURL;

    /**
     * @param primaryOortURL the primary's URL, or null to elect one among the live nodes
     */
    protected OortPrimaryService(Oort oort, String name, String primaryOortURL) {
        super(oort, name);
        this.primaryOortURL = primaryOortURL;
    }

    /** Elects the primary among the live nodes: the smallest URL of this node and the joined ones. */
    protected OortPrimaryService(Oort oort, String name) {
        this(oort, name, null);
    }

    /** Whether the primary is elected (rather than fixed). */
    public boolean elected() {
        return primaryOortURL == null;
    }

    /** The primary's URL now, or null when the fixed primary is not joined (and is not this node). */
    public String getPrimaryOortURL() {
        Oort oort = getOort();
        if (primaryOortURL == null) {
            TreeSet<String> live = new TreeSet<>(oort.getKnownComets());
            live.add(oort.getURL());
            return live.first();
        }
        return primaryOortURL.equals(oort.getURL()) || oort.getKnownComets().contains(primaryOortURL) ? primaryOortURL : null;
    }

    /** Whether this node is the primary now. */
    public boolean isPrimary() {
        return Objects.equals(getPrimaryOortURL(), getOort().getURL());
    }

    /**
     * Runs {@link #onForward} on the primary.
     *
     * @return false when there was no primary to send to ({@code onForwardFailed} already ran with {@link #NO_PRIMARY})
     */
    protected boolean forwardToPrimary(Object parameter, C context) {
        String primary = getPrimaryOortURL();
        if (primary != null && forward(primary, parameter, context)) {
            return true;
        }
        onForwardFailed(NO_PRIMARY, context);
        return false;
    }
}
