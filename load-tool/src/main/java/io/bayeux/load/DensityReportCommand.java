package io.bayeux.load;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code bayeux-load density-report}: the JSON files of density runs ({@code density --json}),
 * side by side in one HTML page and, or, one PNG of its charts ({@link DensityReport}).
 */
@Command(name = "density-report", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Density runs (their --json files) side by side: an HTML page with their figures and charts, or a PNG of the charts.")
final class DensityReportCommand implements Callable<Integer> {
    @Parameters(paramLabel = "[LABEL=]FILE", arity = "1..*",
            description = "A density run's JSON file, named LABEL in the report (default: the file's name without .json)")
    List<String> files;

    @Option(names = "--html", paramLabel = "FILE", description = "Write the HTML page here")
    Path html;

    @Option(names = "--png", paramLabel = "FILE", description = "Write the charts, two a row, as one PNG here")
    Path png;

    @Override
    public Integer call() throws IOException {
        if (html == null && png == null) {
            throw new IllegalArgumentException("Say where the report goes: --html FILE, --png FILE or both");
        }
        List<DensityReport.Run> runs = runs(files);
        if (html != null) {
            DensityReport.writeHtml(html, runs);
            System.out.println("HTML report written to " + html);
        }
        if (png != null) {
            DensityReport.writePng(png, runs);
            System.out.println("Charts written to " + png);
        }
        return 0;
    }

    /** Each {@code [LABEL=]FILE} read: a file that is no density run's JSON is refused with its name. */
    static List<DensityReport.Run> runs(List<String> files) throws IOException {
        List<DensityReport.Run> runs = new ArrayList<>();
        for (String argument : files) {
            int equals = argument.indexOf('=');
            Path file = Path.of(equals < 0 ? argument : argument.substring(equals + 1));
            String name = file.getFileName().toString();
            String label = equals < 0 ? (name.endsWith(".json") ? name.substring(0, name.length() - 5) : name) : argument.substring(0, equals);
            if (!Files.isRegularFile(file)) {
                throw new IllegalArgumentException("No such file: " + file);
            }
            JsonNode result = Summary.JSON.readTree(file.toFile());
            if (!result.path("steps").isArray() || !result.path("rounds").isArray() || !result.path("empty").isObject()) {
                throw new IllegalArgumentException(file + " is not the JSON of a density run (bayeux-load density --json)");
            }
            runs.add(new DensityReport.Run(label, result));
        }
        return runs;
    }
}
