package io.blockcache.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * Draws line charts (or, with {@link #bars()}, grouped points as bars) to PNG with the JDK alone, so every
 * benchmark can publish a picture beside its table. Axes start at zero unless the data is negative; x may be
 * logarithmic (block-size sweeps).
 */
public final class LineChart {
    private static final int WIDTH_PX = 900;
    private static final int HEIGHT_PX = 520;
    private static final int MARGIN_LEFT_PX = 90;
    private static final int MARGIN_RIGHT_PX = 190;
    private static final int MARGIN_TOP_PX = 50;
    private static final int MARGIN_BOTTOM_PX = 70;
    private static final Color[] PALETTE = {
        new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0xff7f0e),
        new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f),
    };

    private final String title;
    private final String xLabel;
    private final String yLabel;
    private final List<Series> series = new ArrayList<>();
    private boolean logX;
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

    /** Draws each series' points as bars grouped by x instead of lines. */
    public LineChart bars() {
        bars = true;
        return this;
    }

    /**
     * Names the x positions 0, 1, 2, ... of a bar chart (e.g. workloads); the ticks then show these names instead
     * of numbers.
     */
    public LineChart categories(String... names) {
        categories = names.clone();
        return this;
    }

    /** Renders to a PNG file, creating its directory. */
    public void writePng(Path file) throws IOException {
        System.setProperty("java.awt.headless", "true");
        BufferedImage image = new BufferedImage(WIDTH_PX, HEIGHT_PX, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            draw(g);
        } finally {
            g.dispose();
        }
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        ImageIO.write(image, "png", file.toFile());
    }

    private void draw(Graphics2D g) {
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, WIDTH_PX, HEIGHT_PX);
        double[] range = range();
        int plotW = WIDTH_PX - MARGIN_LEFT_PX - MARGIN_RIGHT_PX;
        int plotH = HEIGHT_PX - MARGIN_TOP_PX - MARGIN_BOTTOM_PX;
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
        g.drawString(title, MARGIN_LEFT_PX, 30);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        drawAxes(g, range, plotW, plotH);
        int index = 0;
        for (Series line : series) {
            Color color = PALETTE[index % PALETTE.length];
            g.setColor(color);
            g.setStroke(new BasicStroke(2f));
            List<double[]> points = line.points();
            int[] previous = null;
            for (double[] point : points) {
                int px = MARGIN_LEFT_PX + (int) Math.round(scaleX(point[0], range) * plotW);
                int py = MARGIN_TOP_PX + plotH
                        - (int) Math.round((point[1] - range[2]) / (range[3] - range[2]) * plotH);
                if (bars) {
                    int barW = Math.max(4, plotW / Math.max(1, points.size() * series.size() * 2));
                    int x0 = px - barW * series.size() / 2 + index * barW;
                    int base = MARGIN_TOP_PX + plotH - (int) Math.round((0 - range[2]) / (range[3] - range[2]) * plotH);
                    g.fillRect(x0, Math.min(py, base), barW - 1, Math.abs(base - py));
                } else {
                    g.fillOval(px - 3, py - 3, 6, 6);
                    if (previous != null) {
                        g.drawLine(previous[0], previous[1], px, py);
                    }
                }
                previous = new int[] {px, py};
            }
            int legendY = MARGIN_TOP_PX + 10 + index * 20;
            g.fillRect(WIDTH_PX - MARGIN_RIGHT_PX + 15, legendY - 8, 14, 10);
            g.setColor(Color.BLACK);
            g.drawString(line.name(), WIDTH_PX - MARGIN_RIGHT_PX + 35, legendY + 2);
            index++;
        }
    }

    private void drawAxes(Graphics2D g, double[] range, int plotW, int plotH) {
        g.setColor(Color.BLACK);
        g.setStroke(new BasicStroke(1f));
        g.drawLine(MARGIN_LEFT_PX, MARGIN_TOP_PX + plotH, MARGIN_LEFT_PX + plotW, MARGIN_TOP_PX + plotH);
        g.drawLine(MARGIN_LEFT_PX, MARGIN_TOP_PX, MARGIN_LEFT_PX, MARGIN_TOP_PX + plotH);
        double step = niceStep((range[3] - range[2]) / 5);
        for (double y = Math.ceil(range[2] / step) * step; y <= range[3] + step * 1e-9; y += step) {
            int py = MARGIN_TOP_PX + plotH - (int) Math.round((y - range[2]) / (range[3] - range[2]) * plotH);
            g.setColor(new Color(0xdddddd));
            g.drawLine(MARGIN_LEFT_PX + 1, py, MARGIN_LEFT_PX + plotW, py);
            g.setColor(Color.BLACK);
            String label = format(y);
            g.drawString(label, MARGIN_LEFT_PX - 8 - g.getFontMetrics().stringWidth(label), py + 4);
        }
        for (double x : xTicks(range)) {
            int px = MARGIN_LEFT_PX + (int) Math.round(scaleX(x, range) * plotW);
            g.drawLine(px, MARGIN_TOP_PX + plotH, px, MARGIN_TOP_PX + plotH + 5);
            String label = categoryName(x);
            g.drawString(label, px - g.getFontMetrics().stringWidth(label) / 2, MARGIN_TOP_PX + plotH + 20);
        }
        g.drawString(xLabel, MARGIN_LEFT_PX + plotW / 2 - 60, HEIGHT_PX - 20);
        Graphics2D rotated = (Graphics2D) g.create();
        rotated.rotate(-Math.PI / 2);
        rotated.drawString(yLabel, -(MARGIN_TOP_PX + plotH / 2 + g.getFontMetrics().stringWidth(yLabel) / 2), 16);
        rotated.dispose();
    }

    private String categoryName(double x) {
        int index = (int) Math.round(x);
        if (categories != null && x == index && index >= 0 && index < categories.length) {
            return categories[index];
        }
        return format(x);
    }

    private List<Double> xTicks(double[] range) {
        List<Double> ticks = new ArrayList<>();
        if (bars) {
            // Bars stand at the data's x values: tick exactly those, not an even scale of fractions between them.
            java.util.TreeSet<Double> present = new java.util.TreeSet<>();
            for (Series line : series) {
                for (double[] point : line.points()) {
                    present.add(point[0]);
                }
            }
            ticks.addAll(present);
            return ticks;
        }
        if (logX) {
            for (double x = Math.pow(2, Math.floor(log2(range[0]))); x <= range[1] * 1.0001; x *= 2) {
                if (x >= range[0] * 0.9999) {
                    ticks.add(x);
                }
            }
        } else {
            for (int i = 0; i <= 5; i++) {
                ticks.add(range[0] + (range[1] - range[0]) * i / 5);
            }
        }
        return ticks;
    }

    private double scaleX(double x, double[] range) {
        if (range[1] == range[0]) {
            return 0.5;
        }
        if (logX) {
            return (log2(x) - log2(range[0])) / (log2(range[1]) - log2(range[0]));
        }
        return (x - range[0]) / (range[1] - range[0]);
    }

    private static double log2(double x) {
        return Math.log(x) / Math.log(2);
    }

    /** [xMin, xMax, yMin, yMax] over all points; y from zero (or the minimum if negative), 5 % headroom. */
    private double[] range() {
        double xMin = Double.MAX_VALUE;
        double xMax = -Double.MAX_VALUE;
        double yMin = 0;
        double yMax = 0;
        for (Series line : series) {
            for (double[] point : line.points()) {
                xMin = Math.min(xMin, point[0]);
                xMax = Math.max(xMax, point[0]);
                yMin = Math.min(yMin, point[1]);
                yMax = Math.max(yMax, point[1]);
            }
        }
        if (xMin == Double.MAX_VALUE) {
            return new double[] {0, 1, 0, 1};
        }
        if (yMax == yMin) {
            yMax = yMin + 1;
        }
        if (bars && !logX) {
            // Half a group of room at each end, so the outer groups' bars stay inside the plot.
            int groups = series.isEmpty() ? 1 : Math.max(1, series.get(0).points().size());
            double pad = xMax > xMin ? (xMax - xMin) / (2.0 * Math.max(1, groups - 1)) : 0.5;
            xMin -= pad;
            xMax += pad;
        }
        double step = niceStep((yMax - yMin) / 5);
        return new double[] {xMin, xMax, Math.floor(yMin / step) * step, Math.ceil(yMax * 1.02 / step) * step};
    }

    /** 1, 2 or 5 times a power of ten, at least {@code raw}: tick steps a reader can add up. */
    private static double niceStep(double raw) {
        double power = Math.pow(10, Math.floor(Math.log10(raw)));
        double fraction = raw / power;
        double nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10;
        return nice * power;
    }

    private static String format(double value) {
        double abs = Math.abs(value);
        if (abs >= 1e6) {
            return String.format(Locale.ROOT, "%.1fM", value / 1e6);
        }
        if (abs >= 1e4) {
            return String.format(Locale.ROOT, "%.0fk", value / 1e3);
        }
        if (abs >= 100 || value == Math.rint(value)) {
            return String.format(Locale.ROOT, "%.0f", value);
        }
        return String.format(Locale.ROOT, "%.2f", value);
    }
}
