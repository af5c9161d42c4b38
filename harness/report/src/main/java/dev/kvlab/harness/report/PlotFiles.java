package dev.kvlab.harness.report;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.VectorGraphicsEncoder;

/** Encodes a {@link Plot} as PNG and SVG bytes (XChart's encoders; SVG through VectorGraphics2D). */
final class PlotFiles {

    private PlotFiles() {}

    static byte[] png(Plot p) {
        try {
            return BitmapEncoder.getBitmapBytes(p.chart(), BitmapEncoder.BitmapFormat.PNG);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode plot " + p.name() + " as PNG", e);
        }
    }

    static byte[] svg(Plot p) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            VectorGraphicsEncoder.saveVectorGraphic(p.chart(), out, VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode plot " + p.name() + " as SVG", e);
        }
        return out.toByteArray();
    }

    static String svgText(Plot p) {
        return new String(svg(p), StandardCharsets.UTF_8);
    }
}
