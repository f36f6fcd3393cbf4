package io.bayeux.server.filter;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MaskWordsFilterTest {
    private static Object filter(MaskWordsFilter filter, Object data) {
        return filter.filter(null, null, data);
    }

    @Test
    void masksAWordWithAsterisksOfTheSameLength() {
        assertEquals("oh **** it", filter(new MaskWordsFilter("darn"), "oh darn it"));
    }

    @Test
    void masksWhateverTheCase() {
        assertEquals("****, ****! ****", filter(new MaskWordsFilter("darn"), "Darn, DARN! dArN"));
    }

    @Test
    void masksOnlyWholeWords() {
        MaskWordsFilter filter = new MaskWordsFilter("darn");
        String text = "darned undarn darn_it darn2";
        assertSame(text, filter(filter, text));
        assertEquals("(****) ****.", filter(filter, "(darn) darn."));
    }

    @Test
    void masksEveryListedWordAndPrefersTheLongest() {
        MaskWordsFilter filter = new MaskWordsFilter("heck", "darn", "darn it");
        assertEquals("*******, what the ****", filter(filter, "darn it, what the heck"));
    }

    @Test
    void masksWordsWithPunctuationLiterally() {
        MaskWordsFilter filter = new MaskWordsFilter("c++", "a.b");
        assertEquals("I like ***, not axb but ***", filter(filter, "I like C++, not axb but a.b"));
    }

    @Test
    void masksNonAsciiWordsOneAsteriskPerCharacter() {
        MaskWordsFilter filter = new MaskWordsFilter("ÉTÉ", "😀x");
        assertEquals("un *** chaud **", filter(filter, "un été chaud 😀x"));
    }

    @Test
    void masksStringsInsideNestedDataButNotKeys() {
        MaskWordsFilter filter = new MaskWordsFilter("darn");
        Object result = filter(filter, Map.of("darn", List.of("darn", Map.of("t", "a darn b"), 3)));
        assertEquals(Map.of("darn", List.of("****", Map.of("t", "a **** b"), 3)), result);
    }

    @Test
    void rejectsNullEmptyAndBlankWordsNamingTheValue() {
        IllegalArgumentException nullWord = assertThrows(IllegalArgumentException.class,
                () -> new MaskWordsFilter("ok", null));
        assertTrue(nullWord.getMessage().contains("null"), nullWord.getMessage());
        IllegalArgumentException empty = assertThrows(IllegalArgumentException.class, () -> new MaskWordsFilter(""));
        assertTrue(empty.getMessage().contains("''"), empty.getMessage());
        IllegalArgumentException blank = assertThrows(IllegalArgumentException.class,
                () -> new MaskWordsFilter(Arrays.asList("ok", " \t")));
        assertTrue(blank.getMessage().contains("' \t'"), blank.getMessage());
        assertThrows(IllegalArgumentException.class, MaskWordsFilter::new);
    }

    @Test
    void keepsTheWordsAsGiven() {
        assertEquals(List.of("b", "aaa"), new MaskWordsFilter("b", "aaa").getWords());
    }
}
