package io.bayeux.server.internal;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The compact form of a held connect's id. */
class PendingBatchTest {
    @Test
    void onlyTheCanonicalDecimalFormOfAnIntIsKeptAsANumber() {
        assertEquals(0, PendingBatch.decimal("0"));
        assertEquals(7, PendingBatch.decimal("7"));
        assertEquals(123456789, PendingBatch.decimal("123456789"));
        // Anything else would not come back as the same String: it is kept as it came.
        assertEquals(-1, PendingBatch.decimal(""));
        assertEquals(-1, PendingBatch.decimal("01"));
        assertEquals(-1, PendingBatch.decimal("-1"));
        assertEquals(-1, PendingBatch.decimal("+1"));
        assertEquals(-1, PendingBatch.decimal("1234567890"));
        assertEquals(-1, PendingBatch.decimal("12a"));
        assertEquals(-1, PendingBatch.decimal("１２"));
    }
}
