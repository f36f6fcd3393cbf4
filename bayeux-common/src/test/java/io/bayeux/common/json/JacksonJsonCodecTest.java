package io.bayeux.common.json;

import io.bayeux.common.HashMapMessage;
import io.bayeux.common.json.JsonCodec.JsonException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
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
