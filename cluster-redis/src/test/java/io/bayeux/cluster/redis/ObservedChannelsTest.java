package io.bayeux.cluster.redis;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which local subscriptions need Redis, and under which Redis name. */
class ObservedChannelsTest {
    @Test
    void aChannelIsOneRedisChannelAndAWildcardOnePatternUnderItsParent() {
        ObservedChannels observed = new ObservedChannels("bayeux:");
        assertEquals("bayeux:/chat/room", observed.redisName("/chat/room"));
        assertEquals("bayeux:/chat/*", observed.redisName("/chat/*"));
        assertEquals("bayeux:/chat/*", observed.redisName("/chat/**"), "one pattern serves both wildcards");
        assertTrue(ObservedChannels.isPattern(observed.redisName("/chat/*")));
        assertFalse(ObservedChannels.isPattern(observed.redisName("/chat/room")));
    }

    @Test
    void globCharactersOfThePrefixAreEscaped() {
        ObservedChannels observed = new ObservedChannels("app[1]*:");
        assertEquals("app\\[1\\]\\*:/chat/*", observed.redisName("/chat/*"));
        assertTrue(ObservedChannels.covers(observed.redisName("/chat/*"), "app[1]*:/chat/room"));
    }

    @Test
    void aSubscriptionIsRelevantWhenWhatItMatchesMayBeShared() {
        ObservedChannels observed = new ObservedChannels("bayeux:");
        observed.add("/chat/**");
        observed.add("/stock/nasdaq");
        assertTrue(observed.isRelevant("/chat/room"));
        assertTrue(observed.isRelevant("/chat/*"));
        assertTrue(observed.isRelevant("/stock/*"), "/stock/nasdaq is one of its channels");
        assertFalse(observed.isRelevant("/news/*"));
        assertFalse(observed.isRelevant("/meta/*"));
        assertFalse(observed.isRelevant("/service/*"));
    }

    @Test
    void aPatternCoversTheChannelsUnderItsParentOnly() {
        assertTrue(ObservedChannels.covers("bayeux:/chat/*", "bayeux:/chat/room"));
        assertTrue(ObservedChannels.covers("bayeux:/chat/*", "bayeux:/chat/room/deeper"));
        assertFalse(ObservedChannels.covers("bayeux:/chat/*", "bayeux:/news/room"));
        assertTrue(ObservedChannels.covers("bayeux:/chat/room", "bayeux:/chat/room"));
        assertFalse(ObservedChannels.covers("bayeux:/chat/room", "bayeux:/chat/room2"));
    }

    @Test
    void aTopLevelWildcardIsOnePatternOverEveryChannel() {
        ObservedChannels observed = new ObservedChannels("bayeux:");
        observed.add("/chat/**");
        assertEquals("bayeux:/*", observed.redisName("/**"));
        assertEquals("bayeux:/*", observed.redisName("/*"));
        assertTrue(ObservedChannels.covers(observed.redisName("/**"), "bayeux:/chat/room"));
        assertTrue(observed.isRelevant("/**"), "/chat/** is below it");
        assertFalse(observed.isRelevant("/*"), "no observed channel has one segment");
        observed.add("/news");
        assertTrue(observed.isRelevant("/*"));
    }
}
