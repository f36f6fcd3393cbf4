package io.bayeux.oort;

import io.bayeux.api.Bayeux;

/**
 * Told when a node joins the cloud (both directions of its link are up and it announced
 * itself) and when it leaves (a direction broke, it stopped, or it restarted with a new id).
 * For one node, {@code cometLeft} always follows the {@code cometJoined} it undoes. Runs on
 * the {@link Oort}'s own thread, never on an I/O thread; it must not block for long.
 */
public interface CometListener extends Bayeux.BayeuxListener {
    void cometJoined(Event event);

    void cometLeft(Event event);

    /** A node that joined or left: its id (one per start) and its URL. */
    record Event(Oort source, String cometId, String cometURL) {
    }
}
