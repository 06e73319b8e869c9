package io.blockcache.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * A benchmark's picture beside its table: line charts (or, with {@link #bars()}, grouped bars) written to PNG
 * with JFreeChart, with a title, labelled axes (units go in the labels) and a legend. The y axis includes zero;
 * x may be logarithmic, base 2 (block-size sweeps). A small fluent face so that report code reads as the chart.
 */
public final class LineChart {
    private static final int WIDTH_PX = 900;
    private static final int HEIGHT_PX = 520;
    /** The same colours in every chart, so a policy keeps its colour across pictures. */
    private static final Color[] PALETTE = {
        new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0xff7f0e),
        new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f),
    };

    private final String title;
    private final String xLabel;
    private final String yLabel;
    private final List<Series> series = new ArrayList<>();
    private boolean logX;
    private boolean logY;
    private boolean bars;
    private String[] categories;

    /** A chart with a title and axis labels (put units in the labels). */
    public LineChart(String title, String xLabel, String yLabel) {
        this.title = title;
        this.xLabel = xLabel;
        this.yLabel = yLabel;
    }

    /** Adds a line. */
    public LineChart add(Series line) {
        series.add(line);
        return this;
    }

    /** Uses a base-2 logarithmic x axis (x must be positive). */
    public LineChart logX() {
        logX = true;
        return this;
    }

    /**
     * Uses a base-10 logarithmic y axis for a bar chart (values must be positive): for figures that differ by orders of
     * magnitude, where a linear axis would show only the largest.
     */
    public LineChart logY() {
        logY = true;
        return this;
    }

    /** Draws each series' points as bars grouped by x instead of lines. */
    public LineChart bars() {
        bars = true;
        return this;
    }

    /**
     * Names the x positions 0, 1, 2, ... of a bar chart (e.g. workloads); the axis then shows these names instead
     * of numbers.
     */
    public LineChart categories(String... names) {
        categories = names.clone();
        return this;
    }

    /** Renders to a PNG file, creating its directory. */
    public void writePng(Path file) throws IOException {
        System.setProperty("java.awt.headless", "true");
        JFreeChart chart = bars ? barChart() : lineChart();
        chart.setBackgroundPaint(Color.WHITE);
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH_PX, HEIGHT_PX);
    }

    private JFreeChart lineChart() {
        XYSeriesCollection data = new XYSeriesCollection();
        for (Series line : series) {
            XYSeries points = new XYSeries(line.name(), true, true);
            for (double[] point : line.points()) {
                points.add(point[0], point[1]);
            }
            data.addSeries(points);
        }
        JFreeChart chart = ChartFactory.createXYLineChart(title, xLabel, yLabel, data, PlotOrientation.VERTICAL,
                true, false, false);
        XYPlot plot = chart.getXYPlot();
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        if (logX) {
            LogAxis axis = new LogAxis(xLabel);
            axis.setBase(2);
            axis.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
            java.text.NumberFormat whole = java.text.NumberFormat.getIntegerInstance(Locale.ROOT);
            whole.setGroupingUsed(false); // "1024", as block sizes are written, not "1,024"
            axis.setNumberFormatOverride(whole);
            plot.setDomainAxis(axis);
        }
        ((NumberAxis) plot.getRangeAxis()).setAutoRangeIncludesZero(true);
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        for (int i = 0; i < series.size(); i++) {
            renderer.setSeriesPaint(i, PALETTE[i % PALETTE.length]);
            renderer.setSeriesStroke(i, new BasicStroke(2f));
        }
        plot.setRenderer(renderer);
        return chart;
    }

    private JFreeChart barChart() {
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        for (Series line : series) {
            for (double[] point : line.points()) {
                data.addValue(point[1], line.name(), categoryName(point[0]));
            }
        }
        JFreeChart chart = ChartFactory.createBarChart(title, xLabel, yLabel, data, PlotOrientation.VERTICAL, true,
                false, false);
        CategoryPlot plot = chart.getCategoryPlot();
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        BarRenderer renderer = (BarRenderer) plot.getRenderer();
        if (logY) {
            LogAxis axis = new LogAxis(yLabel);
            axis.setTickUnit(new NumberTickUnit(1)); // a tick per decade: 0.1, 1, 10, 100
            axis.setNumberFormatOverride(new java.text.DecimalFormat("0.###", java.text.DecimalFormatSymbols
                    .getInstance(Locale.ROOT)));
            plot.setRangeAxis(axis);
            renderer.setBase(smallestValue() / 2); // a bar grows from here: a log axis has no zero
        }
        renderer.setShadowVisible(false);
        renderer.setBarPainter(new org.jfree.chart.renderer.category.StandardBarPainter());
        for (int i = 0; i < series.size(); i++) {
            renderer.setSeriesPaint(i, PALETTE[i % PALETTE.length]);
        }
        return chart;
    }

    private double smallestValue() {
        double smallest = Double.MAX_VALUE;
        for (Series line : series) {
            for (double[] point : line.points()) {
                smallest = Math.min(smallest, point[1]);
            }
        }
        return smallest == Double.MAX_VALUE ? 1 : smallest;
    }

    /** The name of x position {@code x} of a bar chart: its category, or the number. */
    private String categoryName(double x) {
        int index = (int) Math.round(x);
        if (categories != null && index == x && index >= 0 && index < categories.length) {
            return categories[index];
        }
        return x == Math.rint(x) ? Long.toString((long) x) : String.format(Locale.ROOT, "%.3g", x);
    }
}
