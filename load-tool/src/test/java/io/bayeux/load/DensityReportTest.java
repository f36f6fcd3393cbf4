package io.bayeux.load;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Density runs read back from their JSON, side by side: the table's figures, the charts, and what is refused. */
class DensityReportTest {

    /** A run of two steps and two rounds of three broadcasts each, back to empty after both. */
    private static final String OURS = """
            {"url":"http://127.0.0.1:1/cometd","deflateOffered":true,"clientScheduling":"batch",
             "empty":{"heapAfterGcBytes":%1$s0,"rssBytes":%1$s00},
             "steps":[{"clients":1000,"sample":{"heapAfterGcBytes":%1$s2,"rssBytes":%1$s01},"perConnection":{"heapKiB":2.0,"rssKiB":1.0,"directKiB":0.0}},
                      {"clients":2000,"sample":{"heapAfterGcBytes":%1$s4,"rssBytes":%1$s02},"perConnection":{"heapKiB":2.5,"rssKiB":1.5,"directKiB":0.1}}],
             "idleCpuPercentOfOneCore":1.5,
             "rounds":[{"round":1,"connectSeconds":9.0,"broadcastMillis":500.0,"laterBroadcastsMillis":[300.0,310.0],"settleSeconds":2.0,
                        "after":{"heapAfterGcBytes":%1$s1}},
                       {"round":2,"connectSeconds":5.0,"broadcastMillis":250.0,"laterBroadcastsMillis":[260.0,270.0],"settleSeconds":2.5,
                        "after":{"heapAfterGcBytes":%1$s1}}]}
            """.formatted("1048576");

    /** A run written before several broadcasts a round, one round not back and one broadcast that missed clients. */
    private static final String OLDER = """
            {"url":"http://127.0.0.1:2/cometd","deflateOffered":true,
             "empty":{"heapAfterGcBytes":5000000,"rssBytes":900000000},
             "steps":[{"clients":2000,"sample":{"heapAfterGcBytes":37000000,"rssBytes":1100000000},"perConnection":{"heapKiB":16.0,"rssKiB":97.9,"directKiB":0.0}}],
             "rounds":[{"round":1,"connectSeconds":25.0,"broadcastMillis":800.0,"settleSeconds":null,"after":{"heapAfterGcBytes":8000000}},
                       {"round":2,"connectSeconds":11.0,"broadcastMillis":null,"settleSeconds":3.0,"after":{"heapAfterGcBytes":8100000}}]}
            """;

    private static List<DensityReport.Run> runs(Path dir) throws Exception {
        Path ours = Files.writeString(dir.resolve("ours.json"), OURS);
        Path older = Files.writeString(dir.resolve("cometd-8.json"), OLDER);
        return DensityReportCommand.runs(List.of(ours.toString(), "CometD 8=" + older));
    }

    @Test
    void theTableSumsUpEachRunAndThePageCarriesEveryChart(@TempDir Path dir) throws Exception {
        String html = DensityReport.html(runs(dir));

        assertTrue(html.contains("<td>ours</td>"), "a file's name without .json is its label");
        assertTrue(html.contains("<td>CometD 8</td>"), "LABEL=FILE names it");
        assertTrue(html.contains("<td>2,000</td><td>2.50 KiB</td><td>1.50 KiB</td><td>0.10 KiB</td><td>1.5 % of a core</td>"),
                "the highest step's figures per connection, and the idle CPU: " + html);
        assertTrue(html.contains("<td>yes, batch</td>"), "how the clients were scheduled");
        assertTrue(html.contains("<td>yes, normal</td>"), "a run that does not say had its clients scheduled normally");
        assertTrue(html.contains("<td>9.00 s / 5.00 s</td>"), "the first connect-all, then the median of the others");
        assertTrue(html.contains("<td>285 ms (250–500), 6</td>"), "every broadcast of every round, the later ones included");
        assertTrue(html.contains("<td>2 of 2</td>"), "both rounds back to empty");
        assertTrue(html.contains("<td class=\"bad\">some did not reach every client; 800 ms (800–800), 1</td>"),
                "a broadcast that missed clients is said, not hidden");
        assertTrue(html.contains("<td class=\"bad\">1 of 2</td>"), "a round not back to empty is said");
        assertEquals(5, html.split("<img ", -1).length - 1, "five charts");
    }

    @Test
    void theChartsGoTwoARowIntoOnePicture(@TempDir Path dir) throws Exception {
        Path png = dir.resolve("density.png");

        DensityReport.writePng(png, runs(dir));

        BufferedImage picture = ImageIO.read(png.toFile());
        assertEquals(2 * 760, picture.getWidth());
        assertEquals(3 * 400, picture.getHeight(), "five charts in three rows");
    }

    @Test
    void aFileThatIsNoDensityRunIsRefusedByName(@TempDir Path dir) throws Exception {
        Path compare = Files.writeString(dir.resolve("compare.json"), "{\"runs\":[]}");

        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> DensityReportCommand.runs(List.of(compare.toString())));
        assertTrue(refused.getMessage().contains("compare.json is not the JSON of a density run"), refused.getMessage());
        assertThrows(IllegalArgumentException.class, () -> DensityReportCommand.runs(List.of(dir.resolve("missing.json").toString())));
    }
}
