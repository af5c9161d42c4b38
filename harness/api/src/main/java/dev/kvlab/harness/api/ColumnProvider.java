package dev.kvlab.harness.api;

/**
 * A module's own result columns, found by {@link java.util.ServiceLoader} and registered with kvlab's
 * ({@link Columns#all()}): a target declares the figures only it produces ({@code spi.TargetProvider} is one, and is
 * listed under this interface's name in {@code META-INF/services} too), so that no column of one target is named in the
 * core.
 */
public interface ColumnProvider {

    /** The columns this module declares (none by default). */
    default ColumnSet columns() {
        return ColumnSet.NONE;
    }
}
