package io.blockcache.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * One named line of a chart: points (x, y) added in any order, drawn in x order.
 */
public final class Series {
    private final String name;
    private final List<double[]> points = new ArrayList<>();

    /** A series called {@code name} (shown in the legend). */
    public Series(String name) {
        this.name = name;
    }

    /** Adds the point ({@code x}, {@code y}). */
    public Series add(double x, double y) {
        points.add(new double[] {x, y});
        return this;
    }

    /** The legend name. */
    public String name() {
        return name;
    }

    /** The points, sorted by x. */
    public List<double[]> points() {
        List<double[]> sorted = new ArrayList<>(points);
        sorted.sort((a, b) -> Double.compare(a[0], b[0]));
        return sorted;
    }
}
