package io.bayeux.server.internal;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

class CopyOnWriteTest {
    private static final String[] NONE = new String[0];

    @Test
    void listPlusAndMinusLeaveTheOriginalAsItWas() {
        List<String> one = CopyOnWrite.plus(List.of(), "a");
        List<String> two = CopyOnWrite.plus(one, "b");
        assertEquals(List.of("a"), one);
        assertEquals(List.of("a", "b"), two);
        assertEquals(List.of("b"), CopyOnWrite.minus(two, "a"));
        assertSame(two, CopyOnWrite.minus(two, "c"), "nothing to remove: the same list");
        assertEquals(List.of(), CopyOnWrite.minus(one, "a"));
        assertThrows(UnsupportedOperationException.class, () -> two.add("c"), "the copies are immutable");
    }

    @Test
    void arrayPlusOnceAddsAnItemOnlyOnce() {
        String a = "a";
        String[] one = CopyOnWrite.plusOnce(NONE, a);
        assertArrayEquals(new String[]{"a"}, one);
        assertSame(one, CopyOnWrite.plusOnce(one, a), "that very item is there already: the same array");
        String[] two = CopyOnWrite.plusOnce(one, "b");
        assertArrayEquals(new String[]{"a", "b"}, two);
        assertArrayEquals(new String[]{"a"}, one, "the original is unchanged");
    }

    @Test
    void arrayMinusKeepsTheOrderAndEndsWithTheSharedEmptyArray() {
        String a = "a";
        String b = "b";
        String c = "c";
        String[] three = {a, b, c};
        assertArrayEquals(new String[]{a, c}, CopyOnWrite.minus(three, b, NONE));
        assertArrayEquals(new String[]{b, c}, CopyOnWrite.minus(three, a, NONE));
        assertArrayEquals(new String[]{a, b}, CopyOnWrite.minus(three, c, NONE));
        assertSame(three, CopyOnWrite.minus(three, "d", NONE), "nothing to remove: the same array");
        assertSame(NONE, CopyOnWrite.minus(new String[]{a}, a, NONE), "the last one gone: the shared empty array");
        assertArrayEquals(new String[]{a, b, c}, three, "the original is unchanged");
    }
}
