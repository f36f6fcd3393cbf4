package io.bayeux.api;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ChannelIdTest {
    private static ChannelId id(String name) {
        return ChannelId.of(name);
    }

    // --- validation

    @ParameterizedTest
    @ValueSource(strings = {"/a", "/a/b", "/chat/room-1", "/a/*", "/a/**", "/*", "/**", "/meta/connect",
            "/service/echo", "/chat/{room}", "/é/ü", "/a.b/c_d/e~f"})
    void acceptsValidNames(String name) {
        assertTrue(ChannelId.isValid(name), name);
        assertEquals(name, id(name).getId());
        assertEquals(name, id(name).toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "/", "a", "a/b", "//", "/a//b", "//a", "/a/", "/a/b/", "/a/*/b", "/*/a", "/a/**/b",
            "/a*", "/a/b*", "/a/***", "/a/*b", "/a b", "/a\tb", "/a\nb", " /a", "/a ", "/a\u00A0b", "/a\u2003b",
            "/a\u0000b", "/a\u007Fb"})
    void rejectsInvalidNames(String name) {
        assertFalse(ChannelId.isValid(name), name);
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> ChannelId.of(name));
        assertTrue(x.getMessage().contains("'" + name + "'"), x.getMessage());
    }

    @Test
    void rejectsNull() {
        assertFalse(ChannelId.isValid(null));
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> ChannelId.of(null));
        assertTrue(x.getMessage().contains("null"), x.getMessage());
    }

    // --- structure and classification

    @Test
    void knowsItsDepthAndSegments() {
        ChannelId channel = id("/a/b/c");
        assertEquals(3, channel.depth());
        assertEquals("a", channel.getSegment(0));
        assertEquals("c", channel.getSegment(2));
        assertEquals(1, id("/a").depth());
    }

    @Test
    void classifiesMetaServiceAndBroadcastChannels() {
        ChannelId meta = id("/meta/connect");
        assertTrue(meta.isMeta());
        assertFalse(meta.isService());
        assertFalse(meta.isBroadcast());

        ChannelId service = id("/service/echo");
        assertFalse(service.isMeta());
        assertTrue(service.isService());
        assertFalse(service.isBroadcast());

        ChannelId broadcast = id("/chat/room");
        assertFalse(broadcast.isMeta());
        assertFalse(broadcast.isService());
        assertTrue(broadcast.isBroadcast());
    }

    @Test
    void classifiesByTheWholeFirstSegmentOnly() {
        assertTrue(id("/metadata/x").isBroadcast());
        assertTrue(id("/services/x").isBroadcast());
        assertTrue(id("/chat/meta").isBroadcast());
        assertTrue(id("/meta/**").isMeta());
        assertTrue(id("/service/*").isService());
    }

    @Test
    void tellsShallowFromDeepWildcards() {
        ChannelId plain = id("/a/b");
        assertFalse(plain.isWild());
        assertFalse(plain.isShallowWild());
        assertFalse(plain.isDeepWild());

        ChannelId shallow = id("/a/*");
        assertTrue(shallow.isWild());
        assertTrue(shallow.isShallowWild());
        assertFalse(shallow.isDeepWild());

        ChannelId deep = id("/a/**");
        assertTrue(deep.isWild());
        assertFalse(deep.isShallowWild());
        assertTrue(deep.isDeepWild());
    }

    // --- matching

    @Test
    void shallowWildcardMatchesChannelsOfEqualDepthOnly() {
        ChannelId pattern = id("/a/*");
        assertTrue(pattern.matches(id("/a/b")));
        assertTrue(pattern.matches(id("/a/c")));
        assertFalse(pattern.matches(id("/a/b/c")), "deeper");
        assertFalse(pattern.matches(id("/a")), "the parent itself");
        assertFalse(pattern.matches(id("/x/b")), "another prefix");
    }

    @Test
    void deepWildcardMatchesChannelsOfEqualDepthAndDeeper() {
        ChannelId pattern = id("/a/**");
        assertTrue(pattern.matches(id("/a/b")));
        assertTrue(pattern.matches(id("/a/b/c")));
        assertTrue(pattern.matches(id("/a/b/c/d/e")));
        assertFalse(pattern.matches(id("/a")), "the parent itself");
        assertFalse(pattern.matches(id("/ab/c")), "a longer first segment");
        assertFalse(pattern.matches(id("/x/a/b")));
    }

    @Test
    void rootWildcardsMatchEveryChannelOfTheirDepth() {
        assertTrue(id("/**").matches(id("/a")));
        assertTrue(id("/**").matches(id("/a/b/c")));
        assertTrue(id("/**").matches(id("/meta/connect")));
        assertTrue(id("/*").matches(id("/a")));
        assertFalse(id("/*").matches(id("/a/b")));
    }

    @Test
    void plainChannelsMatchOnlyThemselves() {
        assertTrue(id("/a/b").matches(id("/a/b")));
        assertFalse(id("/a/b").matches(id("/a/c")));
        assertFalse(id("/a").matches(id("/a/b")));
    }

    @Test
    void wildcardChannelIsMatchedOnlyByItself() {
        assertTrue(id("/a/*").matches(id("/a/*")));
        assertTrue(id("/a/**").matches(id("/a/**")));
        assertFalse(id("/a/*").matches(id("/a/**")), "/a/** stands for deeper channels too");
        assertFalse(id("/a/**").matches(id("/a/*")));
        assertFalse(id("/**").matches(id("/a/*")));
        assertFalse(id("/a/b").matches(id("/a/*")));
    }

    @Test
    void staticMatchesParsesBothNames() {
        assertTrue(ChannelId.matches("/a/**", "/a/b/c"));
        assertFalse(ChannelId.matches("/a/*", "/a/b/c"));
        assertThrows(IllegalArgumentException.class, () -> ChannelId.matches("/a/", "/a/b"));
        assertThrows(NullPointerException.class, () -> ChannelId.matches(null, "/a/b"));
    }

    @Test
    void everyWildIdOfAChannelMatchesIt() {
        ChannelId channel = id("/a/b/c/d");
        for (String wildId : channel.getWildIds()) {
            assertTrue(id(wildId).matches(channel), wildId);
        }
    }

    // --- wild ids

    @Test
    void wildIdsGoFromMostSpecificToRoot() {
        assertEquals(List.of("/a/b/*", "/a/b/**", "/a/**", "/**"), id("/a/b/c").getWildIds());
    }

    @Test
    void wildIdsOfADepthOneChannelAreTheRootWildcards() {
        assertEquals(List.of("/*", "/**"), id("/a").getWildIds());
    }

    @Test
    void wildcardChannelsHaveNoWildIds() {
        assertEquals(List.of(), id("/a/*").getWildIds());
        assertEquals(List.of(), id("/a/**").getWildIds());
        assertEquals(List.of(), id("/**").getWildIds());
    }

    @Test
    void wildIdsCannotBeChanged() {
        assertThrows(UnsupportedOperationException.class, () -> id("/a/b").getWildIds().add("/x"));
    }

    // --- parents and ancestors

    @Test
    void knowsItsParent() {
        assertEquals("/a/b", id("/a/b/c").getParent());
        assertEquals("/a", id("/a/b").getParent());
        assertNull(id("/a").getParent());
        assertEquals("/a", id("/a/**").getParent());
    }

    @Test
    void tellsParentsFromAncestors() {
        ChannelId a = id("/a");
        ChannelId ab = id("/a/b");
        ChannelId abc = id("/a/b/c");
        assertTrue(a.isParentOf(ab));
        assertFalse(a.isParentOf(abc), "grand-parent");
        assertTrue(a.isAncestorOf(ab));
        assertTrue(a.isAncestorOf(abc));
        assertTrue(ab.isAncestorOf(abc));
        assertFalse(ab.isAncestorOf(ab), "not its own ancestor");
        assertFalse(abc.isAncestorOf(ab), "not the other way round");
        assertFalse(id("/ab").isAncestorOf(id("/ab2/c")), "segments compare whole");
        assertFalse(id("/x").isParentOf(ab));
        assertFalse(id("/a/*").isAncestorOf(abc), "wildcards are nobody's ancestor");
    }

    // --- templates

    @Test
    void recognisesTemplateParameters() {
        ChannelId template = id("/chat/{room}/{user}");
        assertTrue(template.isTemplate());
        assertEquals(List.of("room", "user"), template.getParameters());
        assertFalse(id("/chat/room").isTemplate());
        assertEquals(List.of(), id("/chat/room").getParameters());
        assertFalse(id("/chat/{}").isTemplate(), "an empty name is not a parameter");
    }

    @Test
    void bindsATemplateToAConcreteChannel() {
        ChannelId template = id("/chat/{room}/{user}");
        assertEquals(Map.of("room", "lobby", "user", "ann"), template.bind(id("/chat/lobby/ann")));
        assertEquals(List.of("room", "user"), List.copyOf(template.bind(id("/chat/lobby/ann")).keySet()));
    }

    @Test
    void bindsNothingWhenTheChannelDoesNotFit() {
        ChannelId template = id("/chat/{room}");
        assertEquals(Map.of(), template.bind(id("/chat/lobby/extra")), "deeper");
        assertEquals(Map.of(), template.bind(id("/chat")), "shallower");
        assertEquals(Map.of(), template.bind(id("/news/lobby")), "literal segment differs");
    }

    // --- identity

    @Test
    void equalNamesAreEqualIds() {
        assertEquals(id("/a/b"), id("/a/b"));
        assertEquals(id("/a/b").hashCode(), id("/a/b").hashCode());
        assertNotEquals(id("/a/b"), id("/a/c"));
        assertNotEquals(id("/a/b"), "/a/b");
    }
}
