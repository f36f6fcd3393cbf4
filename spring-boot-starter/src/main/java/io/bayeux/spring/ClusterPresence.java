package io.bayeux.spring;

import io.bayeux.presence.Presence;

/** A cluster node of the starter's that keeps presence: {@link OortMember}, {@link RedisMember}. */
interface ClusterPresence {
    /** The node's presence, or null when it keeps none or is not running. */
    Presence seti();
}
