package io.bayeux.server.filter;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NoMarkupFilterTest {
    private final NoMarkupFilter filter = new NoMarkupFilter();

    private Object filter(Object data) {
        return filter.filter(null, null, data);
    }

    @Test
    void escapesTheCharactersThatMakeMarkup() {
        assertEquals("&lt;script&gt;alert(1) &amp;&lt;/script&gt;", filter("<script>alert(1) &</script>"));
    }

    @Test
    void leavesQuotesAndApostrophesAlone() {
        assertEquals("he said \"hi\" &amp; &lt;b&gt;", filter("he said \"hi\" & <b>"));
        String quoted = "\"quoted\" and 'single', it's {\"json\": [1]}";
        assertSame(quoted, filter(quoted), "nothing to escape, so the very same string");
    }

    @Test
    void escapesAmpersandsOfAlreadyEscapedText() {
        assertEquals("&amp;lt;", filter("&lt;"));
    }

    @Test
    void returnsTheSameStringWhenThereIsNoMarkup() {
        String text = "plain text, nothing to escape";
        assertSame(text, filter(text));
    }

    @Test
    void escapesStringsInsideNestedMapsListsAndArrays() {
        Map<String, Object> data = Map.of(
                "text", "<b>",
                "nested", Map.of("list", List.of("a>b", 1, true)),
                "array", new Object[]{"&", "'"});
        @SuppressWarnings("unchecked")
        Map<String, Object> result = (Map<String, Object>) filter(data);
        assertEquals("&lt;b&gt;", result.get("text"));
        assertEquals(Map.of("list", List.of("a&gt;b", 1, true)), result.get("nested"));
        assertArrayEquals(new Object[]{"&amp;", "'"}, (Object[]) result.get("array"));
    }

    @Test
    void escapesMarkupInMapKeys() {
        assertEquals(Map.of("&lt;img&gt;", "x"), filter(Map.of("<img>", "x")));
    }

    @Test
    void leavesNumbersBooleansAndNullAloneWithTheirTypes() {
        assertEquals(42, filter(42));
        assertEquals(true, filter(true));
        assertEquals(null, filter(null));
        List<Object> withNull = new ArrayList<>();
        withNull.add(null);
        withNull.add(1.5);
        assertSame(withNull, filter(withNull));
        Map<String, Object> mixed = new LinkedHashMap<>();
        mixed.put("n", 7L);
        mixed.put("x", 2.5);
        mixed.put("ok", false);
        mixed.put("none", null);
        mixed.put("text", "<");
        @SuppressWarnings("unchecked")
        Map<String, Object> result = (Map<String, Object>) filter(mixed);
        assertEquals(7L, result.get("n"));
        assertEquals(2.5, result.get("x"));
        assertEquals(false, result.get("ok"));
        assertTrue(result.containsKey("none"));
        assertNull(result.get("none"));
        assertEquals("&lt;", result.get("text"));
    }

    @Test
    void neverChangesTheCallersContainersInPlace() {
        Map<String, Object> inner = new LinkedHashMap<>();
        inner.put("text", "<i>");
        List<Object> list = new ArrayList<>(List.of("<u>"));
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("inner", inner);
        data.put("list", list);

        Object result = filter(data);

        assertEquals(Map.of("inner", Map.of("text", "&lt;i&gt;"), "list", List.of("&lt;u&gt;")), result);
        assertEquals("<i>", inner.get("text"));
        assertEquals(List.of("<u>"), list);
        assertSame(inner, data.get("inner"));
        assertSame(list, data.get("list"));
    }

    @Test
    void returnsTheSameContainersWhenNothingChanges() {
        Map<String, Object> inner = new LinkedHashMap<>(Map.of("n", 1));
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("inner", inner);
        data.put("text", "hello");
        assertSame(data, filter(data));
    }

    @Test
    void keepsUnchangedSiblingsWhenAnotherEntryChanges() {
        Map<String, Object> untouched = Map.of("n", 1);
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("untouched", untouched);
        data.put("text", "<");
        @SuppressWarnings("unchecked")
        Map<String, Object> result = (Map<String, Object>) filter(data);
        assertSame(untouched, result.get("untouched"));
        assertEquals(List.of("untouched", "text"), List.copyOf(result.keySet()), "order is kept");
    }
}
