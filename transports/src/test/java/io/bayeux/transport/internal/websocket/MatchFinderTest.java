package io.bayeux.transport.internal.websocket;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/** {@link MatchFinder}'s parse: the cheapest way to write a message, not the longest match first. */
class MatchFinderTest {
    private static byte[] array(String element) {
        return ("[" + element + "]").getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aMatchIsCutShortWhereThatLetsTheNextOneCoverMore() {
        // The longest match at the start ("ABCDEFG") would leave "HIJ" to literals, too short to match;
        // "ABCD" then "EFGHIJ" writes the message as two matches, fewer bits.
        byte[][] arrays = {array("ABCDEFG"), array("EFGHIJ")};
        Object[] dictionary = {new Object(), new Object()};
        Matches matches = new MatchFinder().find(new Object(), new LoopContexts.Recent(), array("ABCDEFGHIJ"), dictionary, arrays, 2);

        assertArrayEquals(new int[]{
                0, 4 | 1 << 16, 0, // "ABCD" from the first message of the dictionary, its start
                4, 6 | 2 << 16, 0, // "EFGHIJ" from the second, its start
        }, matches.ops);
    }
}
