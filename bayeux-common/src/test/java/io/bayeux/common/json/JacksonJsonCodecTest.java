package io.bayeux.common.json;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bayeux.common.HashMapMessage;
import io.bayeux.common.json.JsonCodec.JsonException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JacksonJsonCodecTest {
    private final JacksonJsonCodec codec = new JacksonJsonCodec();

    private static byte[] utf8(String json) {
        return json.getBytes(StandardCharsets.UTF_8);
    }

    private List<HashMapMessage> decode(String json) throws JsonException {
        return codec.decode(utf8(json), HashMapMessage::new);
    }

    private JsonException decodeFails(String json) {
        return decodeFails(codec, utf8(json));
    }

    private static JsonException decodeFails(JsonCodec codec, byte[] json) {
        return assertThrows(JsonException.class, () -> codec.decode(json, HashMapMessage::new));
    }

    // --- decoding messages

    @Test
    void malformedUtf8IsRefused() {
        // The Java client's WebSocket transport relies on this instead of a second pass over every frame.
        byte[] prefix = utf8("[{\"channel\":\"/a\",\"data\":\"");
        byte[] suffix = utf8("\"}]");
        for (byte[] bad : new byte[][] {{(byte) 0xC3}, {(byte) 0xFF, 'x'}, {(byte) 0xE2, (byte) 0x28, (byte) 0xA1}, {(byte) 0x80}}) {
            byte[] json = new byte[prefix.length + bad.length + suffix.length];
            System.arraycopy(prefix, 0, json, 0, prefix.length);
            System.arraycopy(bad, 0, json, prefix.length, bad.length);
            System.arraycopy(suffix, 0, json, prefix.length + bad.length, suffix.length);
            decodeFails(codec, json);
        }
    }

    @Test
    void decodesAnArrayOfMessagesInOrder() throws JsonException {
        List<HashMapMessage> messages = decode("""
                [{"channel":"/meta/connect","id":1,"clientId":"abc","connectionType":"long-polling"},
                 {"channel":"/chat/room","data":{"text":"hi","tags":["a","b"],"n":2.5,"ok":true,"none":null}}]
                """);
        assertEquals(2, messages.size());
        assertEquals("/meta/connect", messages.get(0).getChannel());
        assertEquals("1", messages.get(0).getId());
        assertEquals("abc", messages.get(0).getClientId());
        Map<String, Object> data = messages.get(1).getDataAsMap();
        assertEquals("hi", data.get("text"));
        assertEquals(List.of("a", "b"), data.get("tags"));
        assertEquals(2.5, data.get("n"));
        assertEquals(true, data.get("ok"));
        assertTrue(data.containsKey("none"));
    }

    @Test
    void decodesASingleMessageObject() throws JsonException {
        List<HashMapMessage> messages = decode("{\"channel\":\"/meta/handshake\",\"version\":\"1.0\"}");
        assertEquals(1, messages.size());
        assertEquals(Map.of("channel", "/meta/handshake", "version", "1.0"), messages.get(0));
    }

    @Test
    void decodesAnEmptyArrayAsNoMessages() throws JsonException {
        assertEquals(List.of(), decode(" [ ] "));
    }

    @Test
    void fillsMessagesMadeByTheFactory() throws JsonException {
        class Tagged extends HashMapMessage {
        }
        List<Tagged> messages = codec.decode(utf8("[{\"channel\":\"/a\"}]"), Tagged::new);
        assertEquals(Tagged.class, messages.get(0).getClass());
        assertEquals("/a", messages.get(0).getChannel());
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"text\"", "42", "true", "null", "", "   "})
    void rejectsATopLevelThatIsNeitherArrayNorObject(String json) {
        JsonException x = decodeFails(json);
        assertTrue(x.getMessage().contains("array") && x.getMessage().contains("object"), x.getMessage());
    }

    @Test
    void rejectsAnArrayHoldingSomethingElseThanObjectsNamingTheElement() {
        JsonException number = decodeFails("[{\"channel\":\"/a\"},{\"channel\":\"/b\"},42]");
        assertTrue(number.getMessage().contains("message 2"), number.getMessage());
        JsonException nested = decodeFails("[[{\"channel\":\"/a\"}]]");
        assertTrue(nested.getMessage().contains("message 0"), nested.getMessage());
        decodeFails("[{\"channel\":\"/a\"},\"x\"]");
        decodeFails("[null]");
    }

    @ParameterizedTest
    @ValueSource(strings = {"[{}] x", "[{}]]", "[{}] [{}]", "{} {}", "{}}", "{\"channel\":\"/a\"} 1"})
    void rejectsTrailingContent(String json) {
        decodeFails(json);
    }

    @ParameterizedTest
    @ValueSource(strings = {"[{\"channel\":}]", "[{\"channel\":\"/a\"}", "{\"channel\"", "[{channel:\"/a\"}]",
            "[{\"channel\":'/a'}]", "[{\"a\":1,}]", "[{},]"})
    void rejectsMalformedJson(String json) {
        decodeFails(json);
    }

    private static byte[] withBytesInAString(byte[] bytes) {
        byte[] prefix = utf8("[{\"channel\":\"/a\",\"data\":\"");
        byte[] suffix = utf8("\"}]");
        byte[] json = new byte[prefix.length + bytes.length + suffix.length];
        System.arraycopy(prefix, 0, json, 0, prefix.length);
        System.arraycopy(bytes, 0, json, prefix.length, bytes.length);
        System.arraycopy(suffix, 0, json, prefix.length + bytes.length, suffix.length);
        return json;
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "c328",     // bad continuation byte
            "ff",       // never a UTF-8 byte
            "80",       // lone continuation byte
            "e282",     // truncated three-byte sequence
            "c080",     // overlong NUL
            "c0af",     // overlong '/'
            "e080af",   // overlong '/' on three bytes
            "f08282ac", // overlong euro sign on four bytes
            "eda080",   // an encoded surrogate
            "f4908080", // above U+10FFFF
            "f5808080"})
    void rejectsInvalidUtf8(String hex) {
        byte[] json = withBytesInAString(HexFormat.of().parseHex(hex));
        JsonException x = decodeFails(codec, json);
        assertTrue(x.getMessage().contains("UTF-8"), x.getMessage());
        assertThrows(JsonException.class, () -> codec.parse(json));
    }

    @Test
    void rejectsASequenceTruncatedByTheEndOfInput() {
        byte[] json = utf8("{\"data\":1}");
        byte[] truncated = java.util.Arrays.copyOf(json, json.length + 2);
        truncated[json.length] = (byte) 0xE2;
        truncated[json.length + 1] = (byte) 0x82;
        JsonException x = decodeFails(codec, truncated);
        assertTrue(x.getMessage().contains("UTF-8"), x.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"7f", "c280", "dfbf", "e0a080", "ed9fbf", "ee8080", "efbfbf", "f0908080", "f48fbfbf"})
    void acceptsTheEdgesOfValidUtf8(String hex) throws JsonException {
        byte[] bytes = HexFormat.of().parseHex(hex);
        Object data = codec.decode(withBytesInAString(bytes), HashMapMessage::new).get(0).getData();
        assertEquals(new String(bytes, StandardCharsets.UTF_8), data);
    }

    @Test
    void decodesMultiByteUtf8() throws JsonException {
        assertEquals("été 😀", decode("{\"data\":\"été 😀\"}").get(0).getData());
    }

    // --- decoding straight into messages: the same values as databind gives

    /** What databind makes of {@code json} (a message object or an array of them): the reference. */
    private static List<Map<String, Object>> databind(String json) throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        if (json.startsWith("[")) {
            return mapper.readValue(json, new TypeReference<List<Map<String, Object>>>() { });
        }
        return List.of(mapper.readValue(json, new TypeReference<Map<String, Object>>() { }));
    }

    /** Equal, and every value of the same class, at every depth. */
    private static void assertSameValues(Object expected, Object actual, String where) {
        if (expected == null) {
            assertEquals(null, actual, where);
            return;
        }
        assertEquals(expected.getClass() == HashMapMessage.class ? HashMapMessage.class : expected.getClass(),
                actual == null ? null : actual.getClass(), where);
        if (expected instanceof Map<?, ?> map) {
            Map<?, ?> other = (Map<?, ?>) actual;
            assertEquals(map.keySet(), other.keySet(), where);
            if (map instanceof LinkedHashMap<?, ?>) {
                assertEquals(List.copyOf(map.keySet()), List.copyOf(other.keySet()), where + ": order of the names");
            }
            map.forEach((k, v) -> assertSameValues(v, other.get(k), where + "." + k));
        } else if (expected instanceof List<?> list) {
            List<?> other = (List<?>) actual;
            assertEquals(list.size(), other.size(), where);
            for (int i = 0; i < list.size(); i++) {
                assertSameValues(list.get(i), other.get(i), where + "[" + i + "]");
            }
        } else {
            assertEquals(expected, actual, where);
        }
    }

    private void assertDecodesAsDatabind(String json) throws Exception {
        List<Map<String, Object>> expected = databind(json);
        List<HashMapMessage> actual = decode(json);
        assertEquals(expected.size(), actual.size(), json);
        for (int i = 0; i < expected.size(); i++) {
            assertEquals(expected.get(i), actual.get(i), json);
            for (Map.Entry<String, Object> field : expected.get(i).entrySet()) {
                assertTrue(actual.get(i).containsKey(field.getKey()), json + ": " + field.getKey());
                assertSameValues(field.getValue(), actual.get(i).get(field.getKey()), "message " + i + "." + field.getKey());
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "[{\"channel\":\"/chat/room/17\",\"id\":\"12\",\"data\":{\"r\":17,\"t\":1234567890123,\"c\":\"hello\"}}]",
            "[{\"data\":{\"c\":\"first\"},\"channel\":\"/a\"},{\"channel\":\"/b\",\"data\":{\"c\":\"last\"}}]",
            "{\"ext\":{\"ack\":3},\"channel\":\"/meta/connect\",\"successful\":true,\"advice\":{\"reconnect\":\"retry\",\"interval\":0,\"timeout\":20000}}",
            "[{\"channel\":\"/a\",\"data\":[1,[2,[3,[4,[5,[6,{\"deep\":[[],{}]}]]]]]]}]",
            "[{\"channel\":\"/a\",\"data\":{\"a\":{\"b\":{\"c\":{\"d\":{\"e\":{\"f\":[{\"g\":null}]}}}}}},\"after\":1}]",
            "[{\"data\":[],\"ext\":{},\"advice\":{\"x\":[{},[],\"\",0]}}]",
            "[{\"data\":[0,-1,2147483647,2147483648,-2147483648,-2147483649,9223372036854775807,9223372036854775808,-9223372036854775809]}]",
            "[{\"data\":[0.0,-0.0,1.5,-2.25e3,1E-7,1e400,123456789012345678901234567890.5,3.0]}]",
            "[{\"data\":{\"t\":true,\"f\":false,\"n\":null,\"s\":\"\\u00e9\\n\\\"\\ud83d\\ude00\"},\"id\":7,\"successful\":false}]",
            "[{\"channel\":\"/a\",\"channel\":\"/b\",\"data\":{\"k\":1,\"other\":2,\"k\":{\"n\":[1]}},\"data\":{\"k\":2,\"k\":3}}]",
            "[{\"data\":{\"k\":null,\"k\":1}},{\"data\":{\"k\":1,\"k\":null},\"id\":null}]",
            "[{}, {\"id\":\"1\"}, {}]",
            "[]",
            "{}"})
    void decodesEveryValueAsDatabindDoes(String json) throws Exception {
        assertDecodesAsDatabind(json);
    }

    @Test
    void theLastOfDuplicateNamesWins() throws JsonException {
        HashMapMessage message = decode("[{\"channel\":\"/a\",\"data\":{\"k\":1,\"k\":{\"n\":2}},\"channel\":\"/b\"}]").get(0);
        assertEquals("/b", message.getChannel());
        assertEquals(Map.of("k", Map.of("n", 2)), message.getData());
        assertEquals(2, message.size());
    }

    @Test
    void integersTakeTheSmallestTypeThatHoldsThem() throws JsonException {
        List<?> data = (List<?>) decode("{\"data\":[1,4294967296,18446744073709551616,2.5,1e2]}").get(0).getData();
        assertEquals(List.of(Integer.class, Long.class, java.math.BigInteger.class, Double.class, Double.class),
                data.stream().map(Object::getClass).toList());
    }

    @Test
    void nestedValuesAreLinkedHashMapsAndArrayListsInTheirOrder() throws JsonException {
        HashMapMessage message = decode("[{\"data\":{\"z\":[3,{\"y\":1,\"b\":2}],\"a\":1}}]").get(0);
        Object data = message.getData();
        assertEquals(LinkedHashMap.class, data.getClass());
        assertEquals(List.of("z", "a"), List.copyOf(((Map<?, ?>) data).keySet()));
        Object list = ((Map<?, ?>) data).get("z");
        assertEquals(ArrayList.class, list.getClass());
        assertEquals(List.of("y", "b"), List.copyOf(((Map<?, ?>) ((List<?>) list).get(1)).keySet()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"[{\"data\":{\"a\":[1,2}}]", "[{\"data\":[1,2,]}]", "[{\"data\":{\"a\" 1}}]", "[{\"data\":{\"a\":1",
            "[{\"data\":[", "[{\"data\":tru}]", "[{\"data\":01}]", "[{\"data\":NaN}]", "[{\"data\":{1:2}}]", "[{\"data\":\"a\\x\"}]",
            "[{\"data\":{\"a\":1}]", "[{\"data\"}]", "[{\"id\":1 \"data\":2}]"})
    void rejectsMalformedNestedValues(String json) {
        JsonException x = decodeFails(json);
        assertTrue(x.getMessage().startsWith("Invalid JSON"), x.getMessage());
    }

    @Test
    void checksUtf8AtEveryAlignmentOfTheWordScan() throws JsonException {
        for (int pad = 0; pad <= 17; pad++) {
            String ascii = "a".repeat(pad);
            for (String hex : List.of("c3a9", "e282ac", "f09f9880", "7f")) {
                byte[] good = HexFormat.of().parseHex(hex);
                byte[] text = concat(utf8(ascii), good, utf8(ascii));
                assertEquals(ascii + new String(good, StandardCharsets.UTF_8) + ascii,
                        codec.decode(withBytesInAString(text), HashMapMessage::new).get(0).getData());
            }
            for (String hex : List.of("ff", "80", "c0af", "eda080", "f4908080", "c328")) {
                byte[] json = withBytesInAString(concat(utf8(ascii), HexFormat.of().parseHex(hex), utf8(ascii)));
                JsonException x = decodeFails(codec, json);
                assertTrue(x.getMessage().contains("UTF-8"), pad + " " + hex + ": " + x.getMessage());
            }
            // A sequence cut by the end of the input, after an ASCII run of every length.
            byte[] truncated = concat(utf8("{\"data\":1}" + " ".repeat(pad)), new byte[] {(byte) 0xE2, (byte) 0x82});
            assertTrue(decodeFails(codec, truncated).getMessage().contains("UTF-8"));
        }
    }

    private static byte[] concat(byte[]... parts) {
        int length = 0;
        for (byte[] part : parts) {
            length += part.length;
        }
        byte[] result = new byte[length];
        int at = 0;
        for (byte[] part : parts) {
            System.arraycopy(part, 0, result, at, part.length);
            at += part.length;
        }
        return result;
    }

    // --- nesting limits

    @Test
    void rejectsHugeNestingQuicklyWithoutOverflowingTheStack() {
        String deep = "[".repeat(100_000);
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
            decodeFails("[{\"channel\":\"/a\",\"data\":" + deep);
            decodeFails("{\"data\":" + "{\"a\":".repeat(100_000));
            assertThrows(JsonException.class, () -> codec.parse(utf8(deep)));
        });
    }

    @Test
    void acceptsNestingUpToTheConfiguredLimit() throws JsonException {
        JacksonJsonCodec shallow = new JacksonJsonCodec(4);
        // Array, message object, data object, list: 4 levels.
        byte[] four = utf8("[{\"data\":{\"list\":[1]}}]");
        assertEquals(Map.of("list", List.of(1)), shallow.decode(four, HashMapMessage::new).get(0).getData());
        byte[] five = utf8("[{\"data\":{\"list\":[[1]]}}]");
        JsonException x = decodeFails(shallow, five);
        assertTrue(x.getMessage().toLowerCase().contains("nesting"), x.getMessage());
        assertThrows(JsonException.class, () -> shallow.parse(utf8("[[[[[1]]]]]")));
    }

    @Test
    void acceptsTheDefaultDepthAndRejectsOneMore() throws JsonException {
        int depth = JacksonJsonCodec.DEFAULT_MAX_NESTING_DEPTH;
        String ok = "[".repeat(depth) + "]".repeat(depth);
        codec.parse(utf8(ok));
        String tooDeep = "[".repeat(depth + 1) + "]".repeat(depth + 1);
        assertThrows(JsonException.class, () -> codec.parse(utf8(tooDeep)));
    }

    @Test
    void rejectsALimitBelowTwoNamingIt() {
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> new JacksonJsonCodec(1));
        assertTrue(x.getMessage().contains("1"), x.getMessage());
    }

    // --- writing

    @Test
    void encodedMessagesParseBackEqual() throws JsonException {
        HashMapMessage message = new HashMapMessage();
        message.setChannel("/chat/room");
        message.setId("7");
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("text", "quote \" backslash \\ newline \n unicode é 😀 <tag>");
        data.put("list", List.of(1, 2.5, true, "x"));
        data.put("nested", Map.of("empty", Map.of(), "none", List.of()));
        data.put("null", null);
        message.setData(data);
        message.getExt(true).put("ack", 3);

        byte[] json = codec.encode(message);

        assertEquals(message, codec.parse(json));
        assertEquals(List.of(message), codec.decode(json, HashMapMessage::new));
    }

    /** An application's object in a message's data: databind writes it from its getters. */
    public record Position(double latitude, double longitude, String label) {
    }

    @Test
    void aMessageIsEncodedToTheBytesDatabindWritesForIt() throws JsonException {
        HashMapMessage reply = new HashMapMessage();
        reply.setChannel("/meta/connect");
        reply.setId("12");
        reply.setClientId("1a2b3c");
        reply.setSuccessful(true);
        Map<String, Object> advice = reply.getAdvice(true);
        advice.put("reconnect", "retry");
        advice.put("interval", 0L);
        advice.put("timeout", 30_000L);

        HashMapMessage broadcast = new HashMapMessage();
        broadcast.setChannel("/chat/room");
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("text", "quote \" backslash \\ control \u0001 unicode é 😀 </script>");
        data.put("numbers", List.of(1, -2L, 2.5, Double.NaN, 1.0e300, new java.math.BigInteger("123456789012345678901234567890"),
                new java.math.BigDecimal("0.1"), (short) 3, 4.5f));
        data.put("nested", Map.of("empty", Map.of(), "none", List.of(), "deep", List.of(List.of(List.of(List.of(List.of(
                List.of(List.of(List.of(List.of(List.of("ten levels"))))))))))));
        data.put("null", null);
        data.put("position", new Position(48.85, 2.35, "Paris"));
        data.put("array", new int[] {1, 2});
        data.put("numbers by name", Map.of(1, "one"));
        broadcast.setData(data);
        broadcast.getExt(true).put("ack", true);

        HashMapMessage plain = new HashMapMessage();
        plain.setChannel("/chat/room");
        Map<String, Object> chat = new LinkedHashMap<>();
        chat.put("user", "ada \"quoted\" back\\slash ~ {}[],:");
        chat.put("seq", List.of(Integer.MIN_VALUE, Long.MAX_VALUE, 0, -1, List.of(), Map.of()));
        chat.put("flags", Map.of("read", false, "sent", true, "none", new LinkedHashMap<>()));
        chat.put("nothing", null);
        plain.setData(chat);

        HashMapMessage almostPlain = new HashMapMessage();
        almostPlain.setChannel("/chat/room");
        almostPlain.setData(Map.of("text", "tab\there, delete \u007f, é"));

        HashMapMessage empty = new HashMapMessage();
        ObjectMapper databind = new ObjectMapper();
        for (HashMapMessage message : List.of(reply, broadcast, plain, almostPlain, empty)) {
            byte[] expected;
            try {
                expected = databind.writeValueAsBytes(message);
            } catch (com.fasterxml.jackson.core.JsonProcessingException x) {
                throw new AssertionError(x);
            }
            assertEquals(new String(expected, StandardCharsets.UTF_8), new String(codec.encode(message), StandardCharsets.UTF_8));
        }
    }

    @Test
    void aMessageThatContainsItselfIsRefusedWithAnError() {
        HashMapMessage message = new HashMapMessage();
        message.setChannel("/loop");
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("self", data);
        message.setData(data);

        JsonException x = assertThrows(JsonException.class, () -> codec.encode(message));
        assertTrue(x.getMessage().startsWith("Cannot write JSON"), x::getMessage);
    }

    @Test
    void writesAnyJsonValueAndParsesItBack() throws JsonException {
        List<Object> batch = List.of(Map.of("channel", "/a"), Map.of("channel", "/b", "data", List.of()));
        assertEquals(batch, codec.parse(codec.write(batch)));
        assertEquals("\"s\"", new String(codec.write("s"), StandardCharsets.UTF_8));
        assertEquals("null", new String(codec.write(null), StandardCharsets.UTF_8));
        assertEquals(42, codec.parse(utf8("42")));
    }

    @Test
    void writesUtf8() throws JsonException {
        assertEquals("{\"data\":\"été\"}", new String(codec.write(Map.of("data", "été")), StandardCharsets.UTF_8));
    }

    @Test
    void parseRejectsTrailingContent() {
        assertThrows(JsonException.class, () -> codec.parse(utf8("{} x")));
        assertThrows(JsonException.class, () -> codec.parse(utf8("1 2")));
    }
}
