package io.bayeux.auth.jwt;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ChannelPatternsTest {
    @Test
    void aPlainChannelCoversOnlyItself() {
        assertTrue(ChannelPatterns.covers("/chat/lobby", "/chat/lobby"));
        assertFalse(ChannelPatterns.covers("/chat/lobby", "/chat/other"));
        assertFalse(ChannelPatterns.covers("/chat/lobby", "/chat/*"));
    }

    @Test
    void aShallowWildcardCoversChildrenAndItself() {
        assertTrue(ChannelPatterns.covers("/chat/*", "/chat/lobby"));
        assertTrue(ChannelPatterns.covers("/chat/*", "/chat/*"));
        assertFalse(ChannelPatterns.covers("/chat/*", "/chat/a/b"));
        assertFalse(ChannelPatterns.covers("/chat/*", "/chat/**"));
        assertFalse(ChannelPatterns.covers("/chat/*", "/chat"));
    }

    @Test
    void aDeepWildcardCoversDescendantsAndNarrowerWildcards() {
        assertTrue(ChannelPatterns.covers("/chat/**", "/chat/a/b"));
        assertTrue(ChannelPatterns.covers("/chat/**", "/chat/*"));
        assertTrue(ChannelPatterns.covers("/chat/**", "/chat/a/**"));
        assertTrue(ChannelPatterns.covers("/**", "/*"));
        assertFalse(ChannelPatterns.covers("/chat/**", "/*"));
        assertFalse(ChannelPatterns.covers("/chat/**", "/chatter/a"));
        assertFalse(ChannelPatterns.covers("/chat/**", "/chat"));
    }

    @Test
    void anyCoversNeedsOnePatternThatCovers() {
        assertTrue(ChannelPatterns.anyCovers(List.of("/a", "/b/*"), "/b/c"));
        assertFalse(ChannelPatterns.anyCovers(List.of(), "/b/c"));
    }
}
