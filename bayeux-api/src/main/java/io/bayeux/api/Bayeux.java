package io.bayeux.api;

import java.util.List;

/** What server and client share. */
public interface Bayeux {
    /** The Bayeux protocol version spoken. */
    String VERSION = "1.0";

    /** The names of the transports that are allowed, in order of preference. */
    List<String> getAllowedTransports();

    /** Marker for all listeners that can be added to a Bayeux object. */
    interface BayeuxListener {
    }
}
