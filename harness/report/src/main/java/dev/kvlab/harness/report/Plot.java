package dev.kvlab.harness.report;

import org.knowm.xchart.internal.chartpart.Chart;

/**
 * One figure of the report: written as {@code plots/<name>.png} and {@code plots/<name>.svg} and shown in
 * {@code report.html} with its caption.
 *
 * @param name    file base name, {@code [a-z0-9-]+}
 * @param title   the figure's heading in the page
 * @param caption what the figure shows and how to read it (plain text)
 * @param chart   the XChart chart
 */
record Plot(String name, String title, String caption, Chart<?, ?> chart) {

    Plot {
        if (!name.matches("[a-z0-9-]+")) throw new IllegalArgumentException("bad plot name: " + name);
    }
}
