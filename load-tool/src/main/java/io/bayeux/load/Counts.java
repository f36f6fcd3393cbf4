package io.bayeux.load;

/**
 * The exact account of a run (see {@link Ledger} for the definitions).
 *
 * @param published       messages the publishers sent
 * @param failedPublishes publishes the server refused or whose connection was cut before the reply
 * @param expected        deliveries that should happen: for each message, the clients in its room
 *                        (the publisher included when the server sends publishers their own messages)
 * @param received        every chat message that arrived at a client
 * @param distinct        distinct expected arrivals
 * @param lost            expected minus distinct
 * @param duplicated      arrivals of a message the client already had
 * @param unexpected      arrivals that should not have come at all
 * @param lateFailed      arrivals of a message whose publish had been reported failed
 * @param outOfOrder      arrivals older than the last one from the same publisher; -1 when not checked
 */
public record Counts(long published, long failedPublishes, long expected, long received, long distinct, long lost,
                     long duplicated, long unexpected, long lateFailed, long outOfOrder) {
}
