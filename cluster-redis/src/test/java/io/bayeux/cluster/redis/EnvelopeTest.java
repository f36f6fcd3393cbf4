package io.bayeux.cluster.redis;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The envelope between nodes: what it writes, what it reads back, and how a node knows its own unparsed. */
class EnvelopeTest {
    private static final String NODE = "5f0c6c8e-3a51-4a8e-9d55-0f6a4b1e2c3d";

    @Test
    void anEnvelopeReadsBackAsWritten() throws Exception {
        Map<String, Object> data = Map.of("user", "ann", "chat", "h\u00e9llo \"you\"", "n", List.of(1, 2.5, true));
        String json = new Envelope(NODE, "/chat/room", data, 7, 1234).encode();
        assertEquals(new Envelope(NODE, "/chat/room", data, 7, 1234), Envelope.of(Envelope.parse(json)));
    }

    @Test
    void anEnvelopeBeginsWithItsNodeSoItsOriginKnowsItUnparsed() throws Exception {
        String json = new Envelope(NODE, "/chat/room", Map.of("node", "other"), 1).encode();
        assertTrue(json.startsWith("{\"node\":\"" + NODE + "\",\"channel\":\"/chat/room\""), json);
        assertTrue(Envelope.isFrom(json, Envelope.prefix(NODE)));
        assertFalse(Envelope.isFrom(json, Envelope.prefix("5f0c6c8e")), "another node's id, even a prefix of this one's");
        assertFalse(Envelope.isFrom("{\"o\":3,\"e\":\"x\",\"c\":\"/chat/room\",\"m\":{\"node\":\"" + NODE + "\"}}", Envelope.prefix(NODE)),
                "a history's message is every node's");
    }

    @Test
    void whatIsNoEnvelopeIsToldApart() throws Exception {
        assertNull(Envelope.of(Envelope.parse("{\"type\":\"added\",\"user\":\"ann\"}")));
        assertEquals(0, Envelope.of(Envelope.parse("{\"node\":\"n\",\"channel\":\"/a\",\"data\":null,\"seq\":2}")).time());
    }
}
