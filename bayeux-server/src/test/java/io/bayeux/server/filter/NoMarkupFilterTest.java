package io.bayeux.server.filter;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

class NoMarkupFilterTest {
    private final NoMarkupFilter filter = new NoMarkupFilter();

    private Object filter(Object data) {
        return filter.filter(null, null, data);
    }

    @Test
    void escapesEveryMarkupCharacter() {
        assertEquals("&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;",
                filter("<script>alert(\"x\" & 'y')</script>"));
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
                "array", new Object[]{"'"});
        @SuppressWarnings("unchecked")
        Map<String, Object> result = (Map<String, Object>) filter(data);
        assertEquals("&lt;b&gt;", result.get("text"));
        assertEquals(Map.of("list", List.of("a&gt;b", 1, true)), result.get("nested"));
        assertArrayEquals(new Object[]{"&#39;"}, (Object[]) result.get("array"));
    }

    @Test
    void escapesMarkupInMapKeys() {
        assertEquals(Map.of("&lt;img&gt;", "x"), filter(Map.of("<img>", "x")));
    }

    @Test
    void leavesNumbersBooleansAndNullAlone() {
        assertEquals(42, filter(42));
        assertEquals(true, filter(true));
        assertEquals(null, filter(null));
        List<Object> withNull = new ArrayList<>();
        withNull.add(null);
        withNull.add(1.5);
        assertSame(withNull, filter(withNull));
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
