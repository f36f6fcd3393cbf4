package io.bayeux.server.filter;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class JsonDataFilterTest {
    /** Upper-cases strings, negates numbers. */
    private static final class Shouting extends JsonDataFilter {
        Shouting(int maxDepth) {
            super(maxDepth);
        }

        Shouting() {
        }

        @Override
        protected Object filterString(String string) {
            return string.toUpperCase();
        }

        @Override
        protected Object filterNumber(Number number) {
            return -number.intValue();
        }
    }

    @Test
    void letsSubclassesFilterEveryKindOfLeaf() {
        Object result = new Shouting().filter(null, null, Map.of("a", List.of("x", 1), "b", "y"));
        assertEquals(Map.of("a", List.of("X", -1), "b", "Y"), result);
    }

    @Test
    void rejectsDataNestedDeeperThanTheLimit() {
        Object data = "leaf";
        for (int i = 0; i < 3; i++) {
            data = List.of(data);
        }
        assertEquals(List.of(List.of(List.of("LEAF"))), new Shouting(3).filter(null, null, data));
        Object deeper = List.of(data);
        assertThrows(DataFilter.AbortException.class, () -> new Shouting(3).filter(null, null, deeper));
    }

    @Test
    void rejectsCyclicDataInsteadOfOverflowingTheStack() {
        List<Object> cycle = new ArrayList<>();
        cycle.add(cycle);
        assertThrows(DataFilter.AbortException.class, () -> new Shouting().filter(null, null, cycle));
    }

    @Test
    void rejectsKeysThatCollideOnceFiltered() {
        JsonDataFilter lowerKeys = new JsonDataFilter() {
            @Override
            protected String filterKey(String key) {
                return key.toLowerCase();
            }
        };
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("A", 1);
        data.put("a", 2);
        assertThrows(DataFilter.AbortException.class, () -> lowerKeys.filter(null, null, data));
    }

    @Test
    void rejectsANegativeMaxDepthNamingIt() {
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> new Shouting(-1));
        assertEquals("maxDepth must not be negative: -1", x.getMessage());
    }
}
