package io.bayeux.server.internal;

import io.bayeux.server.spi.Endpoint;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BrowserBindingTest {
    private static final String OWNER = "0123456789abcdef";
    private static final String OTHER = "fedcba9876543210";
    private static final long WINDOW = BrowserBinding.ADOPTION_WINDOW_MILLIS;

    private record Http(String browserId, String sessionBrowserId) implements Endpoint {
        @Override
        public String transportName() {
            return "long-polling";
        }

        @Override
        public boolean canPush() {
            return false;
        }
    }

    private record Socket(String browserId) implements Endpoint {
        @Override
        public String transportName() {
            return "websocket";
        }

        @Override
        public boolean canPush() {
            return true;
        }
    }

    @Test
    void aSessionWithoutABrowserHasNoBinding() {
        assertNull(BrowserBinding.of(new Http(null, null), 0));
    }

    @Test
    void onlyTheOwnersCookieIsAdmittedWhenTheHandshakeSentIt() {
        Object binding = BrowserBinding.of(new Http(OWNER, OWNER), 100);
        assertTrue(BrowserBinding.admits(binding, OWNER, null, false, 0, 100));
        assertFalse(BrowserBinding.admits(binding, null, null, false, 0, 100), "no cookie");
        assertFalse(BrowserBinding.admits(binding, OTHER, null, false, 0, 100), "another browser");
        assertFalse(BrowserBinding.admits(binding, OTHER, null, true, 0, 100), "a session handshaken with its cookie is never adopted");
        assertTrue(BrowserBinding.admits(binding, OTHER, OWNER, false, 0, 100), "a connection that speaks for the owner's browser");
    }

    @Test
    void aSessionWhoseCookieWasSetInTheReplyIsAdoptedOnceByAConnectionOpenedBeforeItsOwnerUsedIt() {
        Object binding = BrowserBinding.of(new Http(null, OWNER), 100);
        assertFalse(BrowserBinding.admits(binding, OTHER, null, false, 50, 110), "only connections that adopt sessions may");
        assertTrue(BrowserBinding.admits(binding, OTHER, null, true, 50, 110), "the socket opened with the handshake adopts it");
        assertTrue(BrowserBinding.admits(binding, OTHER, null, false, 50, 120), "the adopter's browser is admitted from then on");
        assertFalse(BrowserBinding.admits(binding, "aaaaaaaaaaaaaaaa", null, true, 50, 120), "once only");
        assertTrue(BrowserBinding.admits(binding, OWNER, null, false, 0, 130), "the owner still is");
        assertEquals(OWNER, BrowserBinding.owner(binding));
    }

    @Test
    void noAdoptionByAConnectionOpenedAfterTheOwnerUsedItsCookie() {
        Object binding = BrowserBinding.of(new Http(null, OWNER), 100);
        assertTrue(BrowserBinding.admits(binding, OWNER, null, false, 105, 110), "the owner connects with its cookie");
        assertFalse(BrowserBinding.admits(binding, OTHER, null, true, 111, 112), "a thief's socket, opened later, cannot adopt");
        assertTrue(BrowserBinding.admits(binding, OTHER, null, true, 90, 113), "the client's own socket, opened before, still can");
    }

    @Test
    void noAdoptionByAConnectionOpenedLongBeforeTheHandshake() {
        Object binding = BrowserBinding.of(new Http(null, OWNER), 100_000);
        assertFalse(BrowserBinding.admits(binding, OTHER, null, true, 100_000 - WINDOW - 1, 100_010), "a socket kept open in advance");
        assertTrue(BrowserBinding.admits(binding, OTHER, null, true, 100_000 - WINDOW, 100_010), "a socket opened with the handshake");
    }

    @Test
    void noAdoptionPastTheWindow() {
        Object binding = BrowserBinding.of(new Http(null, OWNER), 100);
        assertFalse(BrowserBinding.admits(binding, OTHER, null, true, 50, 100 + WINDOW + 1));
    }

    @Test
    void aSessionHandshakenOnAWebSocketIsNeverAdopted() {
        Object binding = BrowserBinding.of(new Socket(OWNER), 100);
        assertFalse(BrowserBinding.admits(binding, OTHER, null, true, 50, 101));
        assertTrue(BrowserBinding.admits(binding, OWNER, null, true, 50, 101));
    }

    @Test
    void aConnectionThatAdoptedASessionSpeaksForItsOwner() {
        Object binding = BrowserBinding.of(new Http(OWNER, OWNER), 100);
        assertTrue(BrowserBinding.admits(binding, OTHER, OWNER, true, 50, 101), "the alias is the owner");
    }

    @Test
    void aGoneSessionBelongsToItsOwnerAndItsAdopterAndAdoptsNobodyMore() {
        assertTrue(BrowserBinding.belongsTo(null, null, null), "a session of no browser belongs to anyone");
        Object owned = BrowserBinding.of(new Http(OWNER, OWNER), 100);
        assertTrue(BrowserBinding.belongsTo(owned, OWNER, null));
        assertTrue(BrowserBinding.belongsTo(owned, OTHER, OWNER), "a connection that speaks for the owner");
        assertFalse(BrowserBinding.belongsTo(owned, OTHER, null));
        assertFalse(BrowserBinding.belongsTo(owned, null, null));

        Object adoptable = BrowserBinding.of(new Http(null, OWNER), 100);
        assertFalse(BrowserBinding.belongsTo(adoptable, OTHER, null), "not adopted yet");
        assertTrue(BrowserBinding.admits(adoptable, OTHER, null, true, 50, 110), "adopted by the socket opened with the handshake");
        assertTrue(BrowserBinding.belongsTo(adoptable, OTHER, null), "the adopter's browser");
        assertFalse(BrowserBinding.belongsTo(adoptable, "aaaaaaaaaaaaaaaa", null));
    }
}
