package io.bayeux.benchmarks;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.bayeux.common.HashMapMessage;
import io.bayeux.common.json.JacksonJsonCodec;
import io.bayeux.common.json.JsonCodec;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The receive step of a delivery: what a client pays to decode a frame of chat messages as
 * the load tool receives them ({@link JacksonJsonCodec#decode} into {@link HashMapMessage}s).
 * Each message is what the load tool publishes, as the server writes it: a channel
 * {@code /chat/room/N}, an {@code id} on every other one, data with the room, sequence numbers,
 * publisher, send time and a 50-character text, and an {@code ext} on every fourth.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class DecodeBenchmark {
    @State(Scope.Benchmark)
    public static class Frame {
        /** Messages in the frame. */
        @Param({"1", "5", "20"})
        public int messages;
        /** {@code ascii}: the text is ASCII, as the load tool's; {@code utf8}: it holds a few accented letters. */
        @Param({"ascii", "utf8"})
        public String text;
        final JsonCodec codec = new JacksonJsonCodec();
        byte[] json;

        @Setup
        public void setUp() throws JsonCodec.JsonException {
            json = codec.write(frame(messages, "utf8".equals(text)));
        }
    }

    /** A frame as the server writes it: its messages are hash maps, written in their iteration order. */
    static List<Map<String, Object>> frame(int messages, boolean accented) {
        List<Map<String, Object>> frame = new ArrayList<>(messages);
        String chat = accented ? "x".repeat(40) + "été à Noël" : "x".repeat(50);
        for (int i = 0; i < messages; i++) {
            HashMapMessage message = new HashMapMessage();
            int room = 17 + i % 3;
            message.setChannel("/chat/room/" + room);
            if (i % 2 == 0) {
                message.setId(Integer.toString(1000 + i));
            }
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("r", room);
            data.put("q", 123_456 + i);
            data.put("p", 421);
            data.put("s", 98_765 + i);
            data.put("t", 1_234_567_890_123L + i);
            data.put("c", chat);
            message.setData(data);
            if (i % 4 == 3) {
                message.getExt(true).put("ack", 3_000_000_000L + i);
            }
            frame.add(message);
        }
        return frame;
    }

    @Benchmark
    public List<HashMapMessage> decodeFrame(Frame frame) throws JsonCodec.JsonException {
        return frame.codec.decode(frame.json, HashMapMessage::new);
    }

    /** The reference: the decode as it was before it read fields straight into the messages. */
    @Benchmark
    public List<HashMapMessage> decodeFrameAsBefore(Frame frame) throws IOException {
        return Before.decode(frame.json);
    }

    /** Each message read into a LinkedHashMap by databind and copied into the message; UTF-8 checked byte by byte. */
    static final class Before {
        private static final ObjectMapper MAPPER = new ObjectMapper(JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).build()).build());
        private static final ObjectReader MAP_READER = MAPPER.readerFor(Map.class);

        static List<HashMapMessage> decode(byte[] json) throws IOException {
            requireUtf8(json);
            try (JsonParser parser = MAPPER.getFactory().createParser(json)) {
                JsonToken token = parser.nextToken();
                List<HashMapMessage> result = new ArrayList<>();
                if (token != JsonToken.START_ARRAY) {
                    throw new IOException("not an array");
                }
                while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
                    if (token != JsonToken.START_OBJECT) {
                        throw new IOException("not an object");
                    }
                    HashMapMessage message = new HashMapMessage();
                    message.putAll(MAP_READER.<Map<String, Object>>readValue(parser));
                    result.add(message);
                }
                if (parser.nextToken() != null) {
                    throw new IOException("trailing content");
                }
                return result;
            }
        }

        private static void requireUtf8(byte[] bytes) throws IOException {
            int i = 0;
            int length = bytes.length;
            while (i < length) {
                int b = bytes[i];
                if (b >= 0) {
                    i++;
                    continue;
                }
                b &= 0xFF;
                int count;
                int min = 0x80;
                int max = 0xBF;
                if (b >= 0xC2 && b <= 0xDF) {
                    count = 1;
                } else if (b >= 0xE0 && b <= 0xEF) {
                    count = 2;
                    if (b == 0xE0) {
                        min = 0xA0;
                    } else if (b == 0xED) {
                        max = 0x9F;
                    }
                } else if (b >= 0xF0 && b <= 0xF4) {
                    count = 3;
                    if (b == 0xF0) {
                        min = 0x90;
                    } else if (b == 0xF4) {
                        max = 0x8F;
                    }
                } else {
                    throw new IOException("Invalid UTF-8 start byte at " + i);
                }
                if (i + count >= length) {
                    throw new IOException("Truncated UTF-8 sequence at " + i);
                }
                for (int k = 1; k <= count; k++) {
                    int c = bytes[i + k] & 0xFF;
                    if (c < (k == 1 ? min : 0x80) || c > (k == 1 ? max : 0xBF)) {
                        throw new IOException("Invalid UTF-8 continuation byte at " + (i + k));
                    }
                }
                i += count + 1;
            }
        }
    }
}
