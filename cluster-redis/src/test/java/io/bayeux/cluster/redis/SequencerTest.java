package io.bayeux.cluster.redis;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How a node tells first copies from second ones, and counts what it missed. */
class SequencerTest {
    private static Envelope from(String node, String channel, long seq) {
        return new Envelope(node, channel, "data", seq);
    }

    @Test
    void aSecondCopyIsRefusedAndCounted() {
        Sequencer sequencer = new Sequencer();
        assertTrue(sequencer.accept(from("a", "/chat/room", 1)));
        assertTrue(sequencer.accept(from("a", "/chat/room", 2)));
        assertFalse(sequencer.accept(from("a", "/chat/room", 2)));
        assertFalse(sequencer.accept(from("a", "/chat/room", 1)));
        assertEquals(2, sequencer.duplicates());
        assertEquals(0, sequencer.lost());
    }

    @Test
    void eachOriginAndChannelCountsOnItsOwn() {
        Sequencer sequencer = new Sequencer();
        assertTrue(sequencer.accept(from("a", "/chat/room", 1)));
        assertTrue(sequencer.accept(from("b", "/chat/room", 1)));
        assertTrue(sequencer.accept(from("a", "/chat/other", 1)));
        assertEquals(0, sequencer.duplicates());
    }

    @Test
    void aGapIsCountedAsLost() {
        Sequencer sequencer = new Sequencer();
        sequencer.accept(from("a", "/chat/room", 1));
        assertTrue(sequencer.accept(from("a", "/chat/room", 5)));
        assertEquals(3, sequencer.lost());
        sequencer.countLost();
        assertEquals(4, sequencer.lost());
    }

    @Test
    void aForgottenChannelStartsANewCount() {
        Sequencer sequencer = new Sequencer();
        sequencer.accept(from("a", "/chat/room", 7));
        sequencer.accept(from("a", "/chat/kept", 7));
        sequencer.forget(channel -> channel.equals("/chat/kept"));
        assertTrue(sequencer.accept(from("a", "/chat/room", 1)), "forgotten: a new count");
        assertFalse(sequencer.accept(from("a", "/chat/kept", 1)), "kept: still a second copy");
        assertEquals(0, sequencer.lost());
    }

    @Test
    void anEnvelopeSurvivesItsJson() throws Exception {
        Envelope envelope = new Envelope("node-1", "/chat/room", java.util.Map.of("text", "hi"), 42);
        assertEquals(envelope, Envelope.of(Envelope.parse(envelope.encode())));
        assertEquals(null, Envelope.of(Envelope.parse("{\"node\":\"n\",\"userId\":\"u\",\"present\":true}")), "a presence event is no envelope");
    }
}
