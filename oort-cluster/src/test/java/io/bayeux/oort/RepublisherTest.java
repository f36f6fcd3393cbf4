package io.bayeux.oort;

import io.bayeux.api.ChannelId;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The Republisher's matching of observed wildcards, which must agree with {@link ChannelId#matches(ChannelId)}. */
class RepublisherTest {
    @Test
    void wildcardMatchingAgreesWithChannelIds() {
        List<String> patterns = List.of("/**", "/*", "/chat/**", "/chat/*", "/chat/room/*", "/chat/room/**", "/chat", "/chat/room", "/chatty/*");
        List<String> channels = List.of("/chat", "/chat/room", "/chat/room/x", "/chat/room/x/y", "/chatty", "/chatty/a", "/chat/roomy", "/c", "/other/room");
        int matched = 0;
        for (String pattern : patterns) {
            for (String channel : channels) {
                boolean expected = ChannelId.of(pattern).isWild() && ChannelId.matches(pattern, channel);
                assertEquals(expected, Republisher.matchesWild(pattern, channel), pattern + " against " + channel);
                matched += expected ? 1 : 0;
            }
        }
        assertEquals(22, matched, "the table has matches and misses");
    }
}
