package io.bayeux.load;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.awt.Color;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A self-contained HTML page (the charts are PNG data URIs, no script, no link) showing the
 * parameters, the counts, the latency distribution (percentile plot) and the message rates
 * over time of one run or of a comparison.
 */
final class HtmlReport {
    private static final Color[] A_COLORS = {new Color(0x1f77b4), new Color(0x4a9fd8), new Color(0x0d4f80), new Color(0x7fbfea)};
    private static final Color[] B_COLORS = {new Color(0xd62728), new Color(0xf0686a), new Color(0x8c1516), new Color(0xf5a3a4)};

    private HtmlReport() {
    }

    static void write(Path file, List<RunResult> runs, Comparison comparison) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, render(runs, comparison), StandardCharsets.UTF_8);
    }

    static String render(List<RunResult> runs, Comparison comparison) throws IOException {
        StringBuilder html = new StringBuilder();
        String title = comparison == null ? "Bayeux load: " + runs.get(0).label() : "Bayeux load: A/B comparison";
        html.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>").append(esc(title)).append("</title>\n")
                .append("<style>body{font-family:sans-serif;margin:2em;max-width:1100px;color:#222}"
                        + "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 10px;text-align:right}"
                        + "th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}.bad{color:#b00;font-weight:bold}"
                        + "table.params td:nth-child(odd){text-align:left;color:#555}img{max-width:100%;border:1px solid #eee;margin:0.5em 0}code{background:#f5f5f5;padding:2px 4px}</style>\n")
                .append("</head><body>\n<h1>").append(esc(title)).append("</h1>\n");
        RunResult first = runs.get(0);
        html.append("<p>Started ").append(esc(first.startedAt())).append(". A <em>delivery</em> is one message arriving at one client:"
                + " delivered msg/s counts deliveries; published msg/s counts the messages the publishers sent."
                + " Drain: how the wait after the last batch ended (complete; quiet: what is missing is lost;"
                + " timeout: messages were still arriving, so some counted as lost were only late).</p>\n");
        if (comparison != null) {
            html.append("<p>A: <code>").append(esc(comparison.a())).append("</code><br>B: <code>").append(esc(comparison.b()))
                    .append("</code><br>").append(comparison.rounds()).append(" rounds, order ").append(esc(String.join(" ", comparison.order())))
                    .append("</p>\n");
            for (Map.Entry<String, String> failed : comparison.failedRuns().entrySet()) {
                html.append("<p class=\"bad\">Run ").append(esc(failed.getKey())).append(" failed: ").append(esc(failed.getValue())).append("</p>\n");
            }
        }
        // Three parameters a row: the page stays short enough to show the charts.
        html.append("<h2>Parameters</h2>\n<table class=\"params\">");
        int column = 0;
        for (Map.Entry<String, Object> e : first.scenario().entrySet()) {
            html.append(column == 0 ? "<tr>" : "").append("<td>").append(esc(e.getKey())).append("</td><td>")
                    .append(esc(String.valueOf(e.getValue()))).append("</td>");
            column = (column + 1) % 3;
            html.append(column == 0 ? "</tr>\n" : "");
        }
        html.append(column == 0 ? "" : "</tr>").append("</table>\n");
        if (comparison != null) {
            html.append("<h2>Medians and ratios</h2>\n<table><tr><th>metric</th><th>A median (min–max)</th><th>B median (min–max)</th>"
                    + "<th>A/B (per-round min–max)</th></tr>\n");
            for (Comparison.Metric m : comparison.metrics()) {
                html.append("<tr><td>").append(esc(m.name())).append(m.higherIsBetter() ? " ↑" : " ↓").append("</td><td>")
                        .append(spread(m.medianA(), m.minA(), m.maxA())).append("</td><td>").append(spread(m.medianB(), m.minB(), m.maxB()))
                        .append("</td><td>").append(m.ratio() == null ? "-" : String.format(Locale.ROOT, "%.3f (%.3f–%.3f)", m.ratio(), m.ratioMin(), m.ratioMax()))
                        .append("</td></tr>\n");
            }
            html.append("</table>\n<p>↑: higher is better; ↓: lower is better.</p>\n");
        }
        html.append("<h2>Runs</h2>\n<table><tr><th>run</th><th>published msg/s</th><th>delivered msg/s</th><th>expected</th><th>received</th>"
                + "<th>lost</th><th>duplicated</th><th>p50</th><th>p99</th><th>p99.9</th><th>max</th><th>tool CPU %</th><th>server CPU µs/delivery</th>"
                + "<th>server RSS</th><th>heap after GC</th><th>drain</th></tr>\n");
        for (RunResult r : runs) {
            Counts c = r.counts();
            html.append("<tr><td>").append(esc(r.label())).append("</td><td>").append(Format.number(r.rates().publishedPerSecond()))
                    .append("</td><td>").append(Format.number(r.rates().deliveredPerSecond()))
                    .append("</td><td>").append(String.format(Locale.ROOT, "%,d", c.expected()))
                    .append("</td><td>").append(String.format(Locale.ROOT, "%,d", c.received()))
                    .append("</td><td").append(c.lost() != 0 ? " class=\"bad\"" : "").append(">").append(String.format(Locale.ROOT, "%,d", c.lost()))
                    .append("</td><td").append(c.duplicated() != 0 ? " class=\"bad\"" : "").append(">").append(String.format(Locale.ROOT, "%,d", c.duplicated()))
                    .append("</td><td>").append(Format.micros(r.latency().p50())).append("</td><td>").append(Format.micros(r.latency().p99()))
                    .append("</td><td>").append(Format.micros(r.latency().p999())).append("</td><td>").append(Format.micros(r.latency().max()))
                    .append("</td><td>").append(String.format(Locale.ROOT, "%.0f", r.tool().cpuPercentOfOneCore()))
                    .append("</td><td>").append(r.server().cpuMicrosPerDelivery() == null ? "-" : String.format(Locale.ROOT, "%.2f", r.server().cpuMicrosPerDelivery()))
                    .append("</td><td>").append(Format.bytes(r.server().rssBytes()))
                    .append("</td><td>").append(Format.bytes(r.server().heapAfterGcBytes()))
                    .append("</td><td").append("timeout".equals(r.drain()) ? " class=\"bad\"" : "").append(">").append(esc(r.drain())).append("</td></tr>\n");
        }
        html.append("</table>\n");
        if (runs.stream().anyMatch(r -> r.recovery() != null)) {
            html.append("<h2>Recovery</h2>\n<p>Subscriptions made again with a position after a re-handshake: recovered"
                    + " (the server replayed what the client missed, counted above as arrivals) or not, by reason.</p>\n"
                    + "<table><tr><th>run</th><th>connections cut</th><th>handshakes again</th><th>recovered</th><th>replayed</th>"
                    + "<th>not recovered</th></tr>\n");
            for (RunResult r : runs) {
                RunResult.Recovery rc = r.recovery();
                if (rc == null) {
                    continue;
                }
                StringBuilder reasons = new StringBuilder();
                rc.reasons().forEach((reason, n) -> reasons.append(reasons.isEmpty() ? " (" : ", ").append(reason).append(' ').append(n));
                html.append("<tr><td>").append(esc(r.label())).append("</td><td>").append(r.connect().cuts())
                        .append("</td><td>").append(String.format(Locale.ROOT, "%,d", r.connect().rehandshakes()))
                        .append("</td><td>").append(String.format(Locale.ROOT, "%,d", rc.recovered()))
                        .append("</td><td>").append(String.format(Locale.ROOT, "%,d", rc.replayed()))
                        .append("</td><td").append(rc.notRecovered() != 0 ? " class=\"bad\"" : "").append(">")
                        .append(String.format(Locale.ROOT, "%,d", rc.notRecovered())).append(esc(reasons.isEmpty() ? "" : reasons + ")"))
                        .append("</td></tr>\n");
            }
            html.append("</table>\n");
        }
        html.append("<h2>Latency distribution</h2>\n").append(image(latencyChart(runs, comparison), "latency percentile plot")).append('\n');
        html.append("<h2>Messages per second over time</h2>\n").append(image(rateChart(runs, comparison), "msg/s over time")).append('\n');
        html.append("</body></html>\n");
        return html.toString();
    }

    private static String spread(Double median, Double min, Double max) {
        if (median == null) {
            return "-";
        }
        return Format.number(median) + " (" + Format.number(min) + "–" + Format.number(max) + ")";
    }

    private static XYChart latencyChart(List<RunResult> runs, Comparison comparison) {
        XYChart chart = new XYChartBuilder().width(1000).height(420).title("Latency by percentile (measured deliveries)")
                .xAxisTitle("percentile").yAxisTitle("latency (ms)").build();
        style(chart);
        chart.getStyler().setxAxisTickLabelsFormattingFunction(HtmlReport::percentileLabel);
        chart.getStyler().setMarkerSize(0);
        int index = 0;
        boolean any = false;
        for (RunResult r : runs) {
            List<Double> xs = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            for (double[] point : r.percentiles()) {
                double p = Math.min(point[0], 99.9999);
                xs.add(Math.log10(100 / (100 - p)));
                ys.add(point[1] / 1000.0);
            }
            if (xs.isEmpty()) {
                continue;
            }
            XYSeries series = chart.addSeries(seriesName(r, index++), xs, ys);
            series.setMarker(SeriesMarkers.NONE);
            color(series, r, comparison, index);
            any = true;
        }
        if (!any) {
            chart.addSeries("no measured deliveries", new double[] {0, 1}, new double[] {0, 0}).setMarker(SeriesMarkers.NONE);
        }
        return chart;
    }

    /** The x axis holds the "nines" log10(1/(1-p)): 0 is p0, 1 is p90, 2 is p99, 3 is p99.9... */
    private static String percentileLabel(Double x) {
        double p = 100 - 100 / Math.pow(10, x);
        // Distinct ticks need distinct labels (XChart insists): enough digits, no rounding to 0.
        String text = new java.math.BigDecimal(p).round(new java.math.MathContext(6)).stripTrailingZeros().toPlainString();
        return "p" + text;
    }

    private static XYChart rateChart(List<RunResult> runs, Comparison comparison) {
        XYChart chart = new XYChartBuilder().width(1000).height(420).title("Deliveries and publishes per second")
                .xAxisTitle("seconds since the run started").yAxisTitle("delivered msg/s").build();
        style(chart);
        chart.getStyler().setMarkerSize(0);
        int index = 0;
        boolean any = false;
        for (RunResult r : runs) {
            List<Double> xs = new ArrayList<>();
            List<Double> delivered = new ArrayList<>();
            List<Double> published = new ArrayList<>();
            for (RunResult.Sample s : r.timeline()) {
                xs.add(s.second());
                delivered.add((double) s.received());
                published.add((double) s.published());
            }
            if (xs.isEmpty()) {
                continue;
            }
            String name = seriesName(r, index++);
            XYSeries d = chart.addSeries(name + " delivered", xs, delivered);
            d.setMarker(SeriesMarkers.NONE);
            color(d, r, comparison, index);
            if (comparison == null) {
                // Publishes are a hundredth of the deliveries: their own scale, on the right.
                XYSeries p = chart.addSeries(name + " published (right axis)", xs, published);
                p.setMarker(SeriesMarkers.NONE);
                p.setLineColor(Color.GRAY);
                p.setYAxisGroup(1);
                chart.setYAxisGroupTitle(1, "published msg/s");
                chart.getStyler().setYAxisGroupPosition(1, Styler.YAxisPosition.Right);
            }
            any = true;
        }
        if (!any) {
            chart.addSeries("no samples", new double[] {0, 1}, new double[] {0, 0}).setMarker(SeriesMarkers.NONE);
        }
        return chart;
    }

    private static String seriesName(RunResult r, int index) {
        return (index + 1) + ". " + r.label();
    }

    private static void color(XYSeries series, RunResult r, Comparison comparison, int index) {
        if (comparison == null) {
            return;
        }
        Color[] palette = r.label().startsWith("A") ? A_COLORS : B_COLORS;
        series.setLineColor(palette[index % palette.length]);
    }

    private static void style(XYChart chart) {
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        chart.getStyler().setPlotGridLinesVisible(true);
        chart.getStyler().setAntiAlias(true);
    }

    private static String image(XYChart chart, String alt) throws IOException {
        byte[] png = BitmapEncoder.getBitmapBytes(chart, BitmapEncoder.BitmapFormat.PNG);
        return "<img alt=\"" + esc(alt) + "\" src=\"data:image/png;base64," + Base64.getEncoder().encodeToString(png) + "\">";
    }

    /** {@code text} safe in HTML text and attribute values. */
    static String esc(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
