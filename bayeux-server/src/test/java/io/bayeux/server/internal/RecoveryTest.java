package io.bayeux.server.internal;

import io.bayeux.api.Position;
import io.bayeux.api.server.HistoryPolicy;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a subscription to a channel with history replays, decided against a history's bounds. */
class RecoveryTest {
    private static final HistoryPolicy POSITIONS = HistoryPolicy.of(10, Duration.ofMinutes(1));
    private static final HistoryPolicy REPLAY = POSITIONS.withReplayIds();

    private static Recovery.Request recover(long offset, String epoch) {
        return new Recovery.Request("/chat/room", POSITIONS, new Position(offset, epoch), null);
    }

    private static Recovery.Request replay(Long id) {
        return new Recovery.Request("/event/orders", REPLAY, null, id);
    }

    @Test
    void aPositionWithinTheHistoryReplaysWhatFollowsIt() {
        // Kept: 11..20.
        Recovery.Decision decision = Recovery.decide(recover(15, "e"), "e", 20, 11, "trimmed");
        assertEquals(15, decision.after());
        assertEquals(20, decision.upTo());
        assertEquals(true, decision.outcome().get(Position.RECOVERED_FIELD));
        assertEquals(5L, decision.outcome().get(Position.REPLAYED_FIELD));
        assertTrue(Recovery.decide(recover(10, "e"), "e", 20, 11, "trimmed").replays(), "right before the first kept");
        assertFalse(Recovery.decide(recover(20, "e"), "e", 20, 11, "trimmed").replays(), "nothing missed");
    }

    @Test
    void aPositionTheHistoryCannotServeReplaysNothingAndSaysWhy() {
        assertEquals("trimmed", Recovery.decide(recover(9, "e"), "e", 20, 11, "trimmed").outcome().get(Position.REASON_FIELD));
        assertEquals("expired", Recovery.decide(recover(9, "e"), "e", 20, 11, "expired").outcome().get(Position.REASON_FIELD));
        assertEquals("epoch", Recovery.decide(recover(15, "other"), "e", 20, 11, "trimmed").outcome().get(Position.REASON_FIELD));
        assertEquals("ahead", Recovery.decide(recover(21, "e"), "e", 20, 11, "trimmed").outcome().get(Position.REASON_FIELD));
        assertFalse(Recovery.decide(recover(9, "e"), "e", 20, 11, "trimmed").replays());
    }

    @Test
    void aPositionAheadOfWhatThisServerDeliveredButWithinTheEnginesHistoryRecoversWithNothingToReplay() {
        // The engine has 21 and 22 on their way here.
        Recovery.Decision decision = Recovery.decide(recover(21, "e"), "e", 20, 22, 11, "trimmed");
        assertEquals(true, decision.outcome().get(Position.RECOVERED_FIELD));
        assertFalse(decision.replays());
    }

    @Test
    void theReplayDialectServesMinusOneMinusTwoAndAnIdAndRefusesTheRest() {
        assertFalse(Recovery.decide(replay(null), "e", 20, 11, "trimmed").replays());
        assertFalse(Recovery.decide(replay(-1L), "e", 20, 11, "trimmed").replays());
        Recovery.Decision all = Recovery.decide(replay(-2L), "e", 20, 11, "trimmed");
        assertEquals(10, all.after());
        assertEquals(20, all.upTo());
        assertEquals(17, Recovery.decide(replay(17L), "e", 20, 11, "trimmed").after());
        assertNull(Recovery.decide(replay(10L), "e", 20, 11, "trimmed").error(), "right before the first kept");
        assertEquals("400:/event/orders,9:replay_id_invalid", Recovery.decide(replay(9L), "e", 20, 11, "trimmed").error());
        assertEquals("400:/event/orders,21:replay_id_invalid", Recovery.decide(replay(21L), "e", 20, 11, "trimmed").error());
    }
}
