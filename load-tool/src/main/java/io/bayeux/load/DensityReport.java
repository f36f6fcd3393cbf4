package io.bayeux.load;

import com.fasterxml.jackson.databind.JsonNode;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

import javax.imageio.ImageIO;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.function.BiFunction;

/**
 * The figures of one or more density runs ({@link DensityRun.Result}, read back from their JSON
 * so that runs of other days and servers go side by side) as a self-contained HTML page (charts
 * as PNG data URIs, no script, no link) or as one PNG of its charts: memory over the empty server
 * by client count, and per round the broadcasts, the connect-all time and the heap once all left.
 */
final class DensityReport {
    private static final Color[] COLORS = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0x9467bd),
            new Color(0xff7f0e), new Color(0x8c564b)};
    private static final double MIB = 1024 * 1024;
    private static final int WIDTH = 760;
    private static final int HEIGHT = 400;

    /** One run and what to call it. */
    record Run(String label, JsonNode result) {
    }

    private DensityReport() {
    }

    static void writeHtml(Path file, List<Run> runs) throws IOException {
        createParent(file);
        Files.writeString(file, html(runs), StandardCharsets.UTF_8);
    }

    /** The charts of the page, two a row, in one PNG. */
    static void writePng(Path file, List<Run> runs) throws IOException {
        createParent(file);
        List<XYChart> charts = charts(runs);
        int columns = 2;
        int rows = (charts.size() + columns - 1) / columns;
        BufferedImage picture = new BufferedImage(columns * WIDTH, rows * HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D graphics = picture.createGraphics();
        try {
            graphics.setColor(Color.WHITE);
            graphics.fillRect(0, 0, picture.getWidth(), picture.getHeight());
            for (int i = 0; i < charts.size(); i++) {
                graphics.drawImage(BitmapEncoder.getBufferedImage(charts.get(i)), (i % columns) * WIDTH, (i / columns) * HEIGHT, null);
            }
        } finally {
            graphics.dispose();
        }
        ImageIO.write(picture, "png", file.toFile());
    }

    static String html(List<Run> runs) throws IOException {
        StringBuilder html = new StringBuilder();
        html.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Bayeux load: connection density</title>\n")
                .append("<style>body{font-family:sans-serif;margin:2em;max-width:1600px;color:#222}"
                        + "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 10px;text-align:right}"
                        + "th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}.bad{color:#b00;font-weight:bold}"
                        + "img{max-width:49%;border:1px solid #eee;margin:0.2em}</style>\n")
                .append("</head><body>\n<h1>Connection density</h1>\n")
                .append("<p>Idle WebSocket clients, each subscribed and with its <code>/meta/connect</code> held: the server's memory over"
                        + " the empty server at each step, and in each connect-all / leave-all round the broadcasts to all (publish to"
                        + " arrival at the last client), the time to connect and subscribe all, and the heap after GC once all left.</p>\n");
        html.append("<h2>Runs</h2>\n<table><tr><th>run</th><th>server</th><th>clients: deflate offered, scheduling</th><th>clients</th>"
                + "<th>heap / connection</th><th>RSS / connection</th><th>direct / connection</th><th>idle CPU</th>"
                + "<th>rounds</th><th>connect-all, first / median of the others</th><th>broadcast, median (fastest–slowest)</th>"
                + "<th>rounds back to empty</th></tr>\n");
        for (Run run : runs) {
            JsonNode r = run.result();
            JsonNode top = last(r.path("steps"));
            JsonNode perConnection = top == null ? null : top.path("perConnection");
            List<Double> connects = new ArrayList<>();
            List<Double> broadcasts = new ArrayList<>();
            int rounds = 0;
            int back = 0;
            boolean missed = false;
            for (JsonNode round : r.path("rounds")) {
                rounds++;
                connects.add(round.path("connectSeconds").asDouble());
                for (Double millis : broadcasts(round)) {
                    if (millis == null) {
                        missed = true;
                    } else {
                        broadcasts.add(millis);
                    }
                }
                back += number(round.path("settleSeconds")) != null ? 1 : 0;
            }
            html.append("<tr><td>").append(HtmlReport.esc(run.label())).append("</td><td>").append(HtmlReport.esc(r.path("url").asText("-")))
                    .append("</td><td>").append(r.path("deflateOffered").asBoolean() ? "yes" : "no")
                    // A run whose JSON does not say had its clients in the normal policy.
                    .append(", ").append(HtmlReport.esc(r.path("clientScheduling").asText(DensityRun.NORMAL)))
                    .append("</td><td>").append(top == null ? "-" : String.format(Locale.ROOT, "%,d", top.path("clients").asInt()))
                    .append("</td><td>").append(kib(perConnection, "heapKiB"))
                    .append("</td><td>").append(kib(perConnection, "rssKiB"))
                    .append("</td><td>").append(kib(perConnection, "directKiB"))
                    .append("</td><td>").append(number(r.path("idleCpuPercentOfOneCore")) == null ? "-"
                            : String.format(Locale.ROOT, "%.1f %% of a core", r.path("idleCpuPercentOfOneCore").asDouble()))
                    .append("</td><td>").append(rounds)
                    .append("</td><td>").append(connects.isEmpty() ? "-" : String.format(Locale.ROOT, "%.2f s / %s", connects.get(0),
                            connects.size() < 2 ? "-" : String.format(Locale.ROOT, "%.2f s", DensityRun.median(connects.subList(1, connects.size())))))
                    .append("</td><td").append(missed ? " class=\"bad\">some did not reach every client; " : ">")
                    .append(broadcasts.isEmpty() ? "-" : String.format(Locale.ROOT, "%.0f ms (%.0f–%.0f), %d", DensityRun.median(broadcasts),
                            broadcasts.stream().mapToDouble(Double::doubleValue).min().orElseThrow(),
                            broadcasts.stream().mapToDouble(Double::doubleValue).max().orElseThrow(), broadcasts.size()))
                    .append("</td><td").append(back < rounds ? " class=\"bad\">" : ">").append(back).append(" of ").append(rounds)
                    .append("</td></tr>\n");
        }
        html.append("</table>\n<p>Per connection: over the empty server, at the highest step.</p>\n<h2>Charts</h2>\n");
        for (XYChart chart : charts(runs)) {
            byte[] png = BitmapEncoder.getBitmapBytes(chart, BitmapEncoder.BitmapFormat.PNG);
            html.append("<img alt=\"").append(HtmlReport.esc(chart.getTitle())).append("\" src=\"data:image/png;base64,")
                    .append(Base64.getEncoder().encodeToString(png)).append("\">\n");
        }
        html.append("</body></html>\n");
        return html.toString();
    }

    static List<XYChart> charts(List<Run> runs) {
        return List.of(
                stepChart(runs, "Heap after GC over the empty server", "heap (MiB)", "heapAfterGcBytes"),
                stepChart(runs, "RSS over the empty server", "RSS (MiB)", "rssBytes"),
                broadcastChart(runs),
                roundChart(runs, "Connect and subscribe all", "seconds", (result, round) -> number(round.path("connectSeconds"))),
                roundChart(runs, "Heap after GC once all left, over the empty server", "heap (MiB)", DensityReport::heapLeftMiB));
    }

    /** A sample's figure over the empty server's, in MiB, by client count (0 for the empty server itself). */
    private static XYChart stepChart(List<Run> runs, String title, String yTitle, String field) {
        XYChart chart = chart(title, "clients", yTitle);
        for (int i = 0; i < runs.size(); i++) {
            JsonNode r = runs.get(i).result();
            Double empty = number(r.path("empty").path(field));
            if (empty == null) {
                continue;
            }
            List<Double> xs = new ArrayList<>(List.of(0.0));
            List<Double> ys = new ArrayList<>(List.of(0.0));
            for (JsonNode step : r.path("steps")) {
                Double value = number(step.path("sample").path(field));
                if (value != null) {
                    xs.add(step.path("clients").asDouble());
                    ys.add((value - empty) / MIB);
                }
            }
            XYSeries series = chart.addSeries(runs.get(i).label(), xs, ys);
            series.setLineColor(COLORS[i % COLORS.length]);
            series.setMarkerColor(COLORS[i % COLORS.length]);
        }
        return withPlaceholder(chart);
    }

    /** Every broadcast of every round, a point each: a round's broadcasts spread within its width. */
    private static XYChart broadcastChart(List<Run> runs) {
        XYChart chart = chart("Broadcast to all, to the last client", "round", "milliseconds");
        for (int i = 0; i < runs.size(); i++) {
            List<Double> xs = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            for (JsonNode round : runs.get(i).result().path("rounds")) {
                List<Double> each = broadcasts(round);
                for (int k = 0; k < each.size(); k++) {
                    if (each.get(k) != null) {
                        xs.add(round.path("round").asDouble() + (each.size() == 1 ? 0 : 0.6 * k / (each.size() - 1) - 0.3));
                        ys.add(each.get(k));
                    }
                }
            }
            if (!xs.isEmpty()) {
                XYSeries series = chart.addSeries(runs.get(i).label(), xs, ys);
                series.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
                series.setMarkerColor(COLORS[i % COLORS.length]);
            }
        }
        return withPlaceholder(chart);
    }

    private static XYChart roundChart(List<Run> runs, String title, String yTitle, BiFunction<JsonNode, JsonNode, Double> figure) {
        XYChart chart = chart(title, "round", yTitle);
        for (int i = 0; i < runs.size(); i++) {
            List<Double> xs = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            JsonNode result = runs.get(i).result();
            for (JsonNode round : result.path("rounds")) {
                Double value = figure.apply(result, round);
                if (value != null) {
                    xs.add(round.path("round").asDouble());
                    ys.add(value);
                }
            }
            if (!xs.isEmpty()) {
                XYSeries series = chart.addSeries(runs.get(i).label(), xs, ys);
                series.setLineColor(COLORS[i % COLORS.length]);
                series.setMarkerColor(COLORS[i % COLORS.length]);
            }
        }
        return withPlaceholder(chart);
    }

    /** The heap after GC a round left, over the empty server's, in MiB; null where either was not read. */
    private static Double heapLeftMiB(JsonNode result, JsonNode round) {
        Double empty = number(result.path("empty").path("heapAfterGcBytes"));
        Double after = number(round.path("after").path("heapAfterGcBytes"));
        return empty == null || after == null ? null : (after - empty) / MIB;
    }

    /** A round's broadcasts in the order they were made, null for one that did not reach every client. */
    static List<Double> broadcasts(JsonNode round) {
        List<Double> all = new ArrayList<>();
        all.add(number(round.path("broadcastMillis")));
        for (JsonNode later : round.path("laterBroadcastsMillis")) {
            all.add(number(later));
        }
        return all;
    }

    private static XYChart chart(String title, String xTitle, String yTitle) {
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle).build();
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setPlotGridLinesVisible(true);
        chart.getStyler().setAntiAlias(true);
        chart.getStyler().setMarkerSize(7);
        return chart;
    }

    private static XYChart withPlaceholder(XYChart chart) {
        if (chart.getSeriesMap().isEmpty()) {
            chart.addSeries("no figures", new double[] {0, 1}, new double[] {0, 0}).setMarker(SeriesMarkers.NONE);
        }
        return chart;
    }

    private static JsonNode last(JsonNode array) {
        return array.isArray() && !array.isEmpty() ? array.get(array.size() - 1) : null;
    }

    private static Double number(JsonNode node) {
        return node != null && node.isNumber() ? node.asDouble() : null;
    }

    private static String kib(JsonNode perConnection, String field) {
        Double value = perConnection == null ? null : number(perConnection.path(field));
        return value == null ? "-" : String.format(Locale.ROOT, "%.2f KiB", value);
    }

    private static void createParent(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
    }
}
