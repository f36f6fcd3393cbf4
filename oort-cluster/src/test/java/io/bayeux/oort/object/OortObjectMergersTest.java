package io.bayeux.oort.object;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The common factories and mergers. */
class OortObjectMergersTest {
    private static <T> Info<T> info(String url, T object) {
        return new Info<>("http://a/cometd", url, "test", object, 1);
    }

    @Test
    void longSumAddsEveryPart() {
        assertEquals(42L, OortObjectMergers.longSum().merge(List.of(info("http://a/cometd", 40L), info("http://b/cometd", 3L), info("http://c/cometd", -1L))));
        assertEquals(0L, OortObjectMergers.longSum().merge(List.of()));
    }

    @Test
    void mapUnionKeepsTheFirstPartsValueForASharedKey() {
        Map<String, Object> union = OortObjectMergers.<String, Object>mapUnion().merge(List.of(
                info("http://a/cometd", Map.of("k", "a", "x", 1)), info("http://b/cometd", Map.of("k", "b", "y", 2))));
        assertEquals(Map.of("k", "a", "x", 1, "y", 2), union);
        assertThrows(UnsupportedOperationException.class, () -> union.put("z", 3));
    }

    @Test
    void listUnionHasEachElementOnceInPartOrder() {
        List<String> union = OortObjectMergers.<String>listUnion().merge(List.of(
                info("http://a/cometd", List.of("x", "y")), info("http://b/cometd", List.of("y", "z"))));
        assertEquals(List.of("x", "y", "z"), union);
    }

    @Test
    void factoriesMakeDefaultsAndConvertWhatArrives() {
        assertEquals(7L, OortObjectFactories.forLong(7).newObject(null));
        assertEquals(5L, OortObjectFactories.forLong(0).newObject(5));
        assertEquals(12L, OortObjectFactories.forLong(0).newObject("12"));
        assertEquals(Map.of(), OortObjectFactories.forMap().newObject(null));
        assertEquals(Map.of("a", 1), OortObjectFactories.forMap().newObject(Map.of("a", 1)));
        assertEquals(List.of(), OortObjectFactories.forList().newObject(null));
        assertEquals(List.of("a", "b"), OortObjectFactories.forList().newObject(new Object[]{"a", "b"}));
        assertEquals(List.of(1, 2), OortObjectFactories.forList().newObject(List.of(1, 2)));
    }
}
