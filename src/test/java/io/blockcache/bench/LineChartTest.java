package io.blockcache.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LineChartTest {
    @Test
    void writesAReadablePngWithTheSeriesDrawn(@TempDir Path dir) throws Exception {
        // Proves the chart is a real PNG of the expected size with coloured (non-white, non-black) pixels drawn.
        Path file = dir.resolve("img/chart.png");
        new LineChart("test", "block size (KiB)", "MiB/s").logX()
                .add(new Series("a").add(8, 10).add(64, 30).add(1024, 20))
                .add(new Series("b").add(8, 5).add(64, 40).add(1024, 45))
                .writePng(file);
        BufferedImage image = ImageIO.read(file.toFile());
        assertThat(image.getWidth()).isEqualTo(900);
        int coloured = 0;
        for (int x = 0; x < image.getWidth(); x++) {
            for (int y = 0; y < image.getHeight(); y++) {
                int rgb = image.getRGB(x, y) & 0xFFFFFF;
                int r = rgb >> 16;
                int b = rgb & 0xFF;
                if (Math.abs(r - b) > 80) {
                    coloured++;
                }
            }
        }
        assertThat(coloured).isGreaterThan(200);
    }

    @Test
    void barsOnALogAxisShowValuesThatDifferByOrdersOfMagnitude(@TempDir Path dir) throws Exception {
        // Proves logY: a bar of 1 beside one of 1,000 is drawn tall enough to see (on a linear axis it would be
        // under a pixel); the legend's small swatch alone is far fewer pixels than the asserted count.
        Path file = dir.resolve("bars.png");
        new LineChart("test", "cadence", "s").bars().logY().categories("one")
                .add(new Series("small").add(0, 1)).add(new Series("large").add(0, 1000)).writePng(file);
        BufferedImage image = ImageIO.read(file.toFile());
        int small = pixelsOf(image, 0x1f77b4);
        int large = pixelsOf(image, 0xd62728);
        assertThat(small).isGreaterThan(1000);
        assertThat(large).isGreaterThan(5 * small);
    }

    private static int pixelsOf(BufferedImage image, int rgb) {
        int count = 0;
        for (int x = 0; x < image.getWidth(); x++) {
            for (int y = 0; y < image.getHeight(); y++) {
                if ((image.getRGB(x, y) & 0xFFFFFF) == rgb) {
                    count++;
                }
            }
        }
        return count;
    }
}
