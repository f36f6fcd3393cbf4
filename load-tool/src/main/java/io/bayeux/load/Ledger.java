package io.bayeux.load;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * The exact account of a run: who is in which room, what was published where, and what each
 * client received. Nothing is estimated: every chat message carries its room's sequence number
 * (assigned at publish time, one counter per room) and its publisher's id and own sequence
 * number, and each receiver keeps the distinct room sequence numbers it got.
 *
 * <p><b>Expected</b> deliveries of a message published to room {@code r}: the number of clients
 * subscribed to {@code r}, counting the publisher itself (it is always in the room it talks to)
 * when the server broadcasts to publishers ({@code selfDelivery}, the default of both this
 * project's server and CometD's), minus nothing else. A publish that failed on the client side
 * (its connection was cut before the server answered) is taken out of the expectations; if it
 * reached the server after all, its deliveries are counted apart, as {@code lateFailed}.
 * <b>Received</b>: every chat message that arrived; <b>duplicated</b>: arrivals of a message the
 * client already had; <b>lost</b>: expected minus distinct expected arrivals;
 * <b>unexpected</b>: arrivals that should not have come at all (a room the client is not in,
 * its own message when self-delivery is off).
 *
 * <p>Thread-safety: publishing happens on one thread (the pacer); each {@link Receiver} is
 * guarded by itself, since a long-polling client may receive on several event loops.
 */
final class Ledger {
    /** Above this many clients the per-publisher order is not checked (it costs clients² ints). */
    static final int ORDER_CHECK_MAX_CLIENTS = 2000;

    private final int clients;
    private final int rooms;
    private final boolean selfDelivery;
    /** For each client, the rooms it joins, sorted. */
    private final int[][] roomsOf;
    private final int[] subscribersOf;
    private final AtomicLongArray publishedPerRoom;
    /** Per publisher: its own next sequence number. Pacer thread only. */
    private final long[] publisherSeq;
    private final Receiver[] receivers;
    /** Room sequence numbers whose publish failed, per room (rare). */
    private final ConcurrentHashMap<Long, Boolean> failed = new ConcurrentHashMap<>();
    private final LongAdder failedPublishes = new LongAdder();

    Ledger(int clients, int rooms, int roomsPerClient, long seed, boolean selfDelivery) {
        this.clients = clients;
        this.rooms = rooms;
        this.selfDelivery = selfDelivery;
        this.roomsOf = new int[clients][];
        this.subscribersOf = new int[rooms];
        Random random = new Random(seed);
        int[] all = new int[rooms];
        for (int i = 0; i < rooms; i++) {
            all[i] = i;
        }
        for (int c = 0; c < clients; c++) {
            // A partial Fisher-Yates shuffle: the first roomsPerClient entries are a random choice.
            for (int i = 0; i < roomsPerClient; i++) {
                int j = i + random.nextInt(rooms - i);
                int t = all[i];
                all[i] = all[j];
                all[j] = t;
            }
            int[] mine = Arrays.copyOf(all, roomsPerClient);
            Arrays.sort(mine);
            roomsOf[c] = mine;
            for (int r : mine) {
                subscribersOf[r]++;
            }
        }
        this.publishedPerRoom = new AtomicLongArray(rooms);
        this.publisherSeq = new long[clients];
        boolean checkOrder = clients <= ORDER_CHECK_MAX_CLIENTS;
        this.receivers = new Receiver[clients];
        for (int c = 0; c < clients; c++) {
            receivers[c] = new Receiver(c, roomsOf[c], checkOrder ? clients : 0);
        }
    }

    int[] roomsOf(int client) {
        return roomsOf[client];
    }

    /** How many clients joined {@code room}. */
    int subscribers(int room) {
        return subscribersOf[room];
    }

    /** How many deliveries a message to {@code room} should cause. */
    int expectedDeliveries(int room) {
        return subscribersOf[room] - (selfDelivery ? 0 : 1);
    }

    Receiver receiver(int client) {
        return receivers[client];
    }

    /** The mean number of deliveries a published message should cause, for a publisher chosen uniformly who talks in one of its rooms chosen uniformly. */
    double deliveriesPerMessage() {
        double sum = 0;
        int perClient = roomsOf[0].length;
        for (int r = 0; r < rooms; r++) {
            // P(room r) = subscribers(r) / (clients * perClient); deliveries = subscribers(r) (minus the publisher without self-delivery).
            sum += (double) subscribersOf[r] * (subscribersOf[r] - (selfDelivery ? 0 : 1));
        }
        return sum / ((double) clients * perClient);
    }

    /** Pacer thread: the identity of the next message {@code publisher} sends to {@code room}. */
    Stamp stamp(int publisher, int room) {
        long roomSeq = publishedPerRoom.getAndIncrement(room);
        long pubSeq = publisherSeq[publisher]++;
        if (!selfDelivery) {
            receivers[publisher].skip(room, roomSeq);
        }
        return new Stamp(room, roomSeq, publisher, pubSeq);
    }

    /** The publish of this message failed on the client side: it is no longer expected. */
    void publishFailed(Stamp stamp) {
        if (failed.putIfAbsent(key(stamp.room, stamp.roomSeq), Boolean.TRUE) == null) {
            failedPublishes.increment();
            for (int c = 0; c < clients; c++) {
                if (Arrays.binarySearch(roomsOf[c], stamp.room) >= 0) {
                    receivers[c].failed(stamp.room, stamp.roomSeq);
                }
            }
        }
    }

    boolean isFailed(int room, long roomSeq) {
        return !failed.isEmpty() && failed.containsKey(key(room, roomSeq));
    }

    private long key(int room, long roomSeq) {
        return roomSeq * rooms + room;
    }

    /** Sums it all up; call once publishing stopped and nothing more is expected to arrive. */
    Counts counts() {
        long expected = 0;
        long received = 0;
        long distinct = 0;
        long duplicated = 0;
        long unexpected = 0;
        long lateFailed = 0;
        long outOfOrder = 0;
        long failedPerReceiverRoom = 0;
        for (int c = 0; c < clients; c++) {
            for (int r : roomsOf[c]) {
                expected += publishedPerRoom.get(r);
            }
        }
        // Failed publishes and (without self-delivery) own messages are not expected.
        for (Long key : failed.keySet()) {
            failedPerReceiverRoom += subscribersOf[(int) (key % rooms)];
        }
        expected -= failedPerReceiverRoom;
        if (!selfDelivery) {
            long own = 0;
            for (long n : publisherSeq) {
                own += n;
            }
            expected -= own;
        }
        for (Receiver receiver : receivers) {
            synchronized (receiver) {
                received += receiver.arrivals;
                distinct += receiver.distinct();
                duplicated += receiver.duplicates;
                unexpected += receiver.unexpected;
                lateFailed += receiver.lateFailed;
                outOfOrder += receiver.outOfOrder;
            }
        }
        long published = 0;
        for (int r = 0; r < rooms; r++) {
            published += publishedPerRoom.get(r);
        }
        return new Counts(published, failedPublishes.sum(), expected, received, distinct, expected - distinct,
                duplicated, unexpected, lateFailed, receivers[0].lastPubSeq == null ? -1 : outOfOrder);
    }

    /**
     * Up to {@code limit} lost deliveries, as {@code client c: room r #q}: the first message of
     * each room that a client missed. Call once nothing more is expected to arrive.
     */
    List<String> lostExamples(int limit) {
        List<String> examples = new ArrayList<>();
        for (int c = 0; c < clients && examples.size() < limit; c++) {
            Receiver receiver = receivers[c];
            synchronized (receiver) {
                for (int i = 0; i < receiver.rooms.length && examples.size() < limit; i++) {
                    int room = receiver.rooms[i];
                    long missing = receiver.seen[i].firstMissing(publishedPerRoom.get(room));
                    if (missing >= 0) {
                        examples.add("client " + c + ": room " + room + " #" + missing);
                    }
                }
            }
        }
        return examples;
    }

    /** A message's identity. */
    record Stamp(int room, long roomSeq, int publisher, long pubSeq) {
    }

    /** One client's side of the account; guarded by itself. */
    final class Receiver {
        private final int client;
        private final int[] rooms;
        private final SeqSet[] seen;
        private final long[] lastPubSeq;
        private long arrivals;
        private long duplicates;
        private long unexpected;
        private long lateFailed;
        private long outOfOrder;
        /** Distinct entries of the seen sets that are not expected arrivals (failed publishes). */
        private long uncounted;

        Receiver(int client, int[] rooms, int publishers) {
            this.client = client;
            this.rooms = rooms;
            this.seen = new SeqSet[rooms.length];
            for (int i = 0; i < rooms.length; i++) {
                seen[i] = new SeqSet();
            }
            if (publishers > 0) {
                lastPubSeq = new long[publishers];
                Arrays.fill(lastPubSeq, -1);
            } else {
                lastPubSeq = null;
            }
        }

        /** A chat message arrived: records it; true when it is the first arrival of an expected message. */
        synchronized boolean arrived(int room, long roomSeq, int publisher, long pubSeq) {
            arrivals++;
            int index = Arrays.binarySearch(rooms, room);
            if (index < 0 || (!selfDelivery && publisher == client)) {
                unexpected++;
                return false;
            }
            if (isFailed(room, roomSeq)) {
                lateFailed++;
                return false;
            }
            if (!seen[index].add(roomSeq)) {
                duplicates++;
                return false;
            }
            if (lastPubSeq != null && publisher >= 0 && publisher < lastPubSeq.length) {
                if (pubSeq < lastPubSeq[publisher]) {
                    outOfOrder++;
                } else {
                    lastPubSeq[publisher] = pubSeq;
                }
            }
            return true;
        }

        synchronized void skip(int room, long roomSeq) {
            int index = Arrays.binarySearch(rooms, room);
            if (index >= 0) {
                seen[index].skip(roomSeq);
            }
        }

        private long distinct() {
            long sum = 0;
            for (SeqSet set : seen) {
                sum += set.distinct();
            }
            return sum - uncounted;
        }

        /** The publish of this message failed: not expected; if it came already, it counts as late, not as distinct. */
        synchronized void failed(int room, long roomSeq) {
            int index = Arrays.binarySearch(rooms, room);
            if (index >= 0 && !seen[index].add(roomSeq)) {
                lateFailed++;
                uncounted++;
            } else if (index >= 0) {
                uncounted++;
            }
        }

        synchronized long arrivals() {
            return arrivals;
        }
    }
}
