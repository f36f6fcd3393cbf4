package io.bayeux.load;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code bayeux-load server}'s options that are checked before the server starts. */
class ServerCommandTest {
    @Test
    void aNegativeConnectGatherIsRefusedWithItsOptionsName() {
        CommandLine line = LoadTool.commandLine();
        StringWriter err = new StringWriter();
        line.setErr(new PrintWriter(err, true));
        assertEquals(2, line.execute("server", "--port", "0", "--connect-gather", "-5"));
        assertTrue(err.toString().contains("--connect-gather must be 0 or more (ms): -5"), err.toString());
    }
}
