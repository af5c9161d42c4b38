package dev.kvlab.harness.spi;

import dev.kvlab.harness.api.CellObserver;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.ColumnProvider;
import dev.kvlab.harness.api.ColumnSet;
import dev.kvlab.harness.api.config.RunConfig;
import java.util.function.Function;

/**
 * A kind of target: what serves a cell's requests (the emulated serving model, an OpenAI-compatible HTTP server,
 * ...). Found by {@link java.util.ServiceLoader}; the run config's {@code target.kind} picks one. Workloads,
 * arrivals, the measurement, experiments, bundles and the report are the same for every target: a provider
 * validates its cells and runs them through the one measured-cell skeleton. Adding a target is one package with a
 * provider, registered in {@code META-INF/services}.
 *
 * <p>A target's own figures are columns it declares ({@link #columns()}); a provider that declares any is listed in
 * {@code META-INF/services/dev.kvlab.harness.api.ColumnProvider} too, so that the one column registry
 * ({@link dev.kvlab.harness.api.Columns#all()}) holds them wherever the target is on the class path.
 */
public interface TargetProvider extends ColumnProvider {

    /** The {@code target.kind} this provider serves ({@code emulated}, {@code openai}, ...). */
    String kind();

    /** What it is, in a few words (for errors and help). */
    String describe();

    /**
     * The result columns only this target produces (its row extras, the {@code cell.json} figures it reads back, its further
     * figures), registered with kvlab's own; none by default. A column another module reads stays in
     * {@link dev.kvlab.harness.api.Columns}.
     */
    @Override
    default ColumnSet columns() {
        return ColumnSet.NONE;
    }

    /**
     * Whether cells of this target read the run-config key (dotted: a section such as {@code store} or a key below
     * it). A key given with a non-default value that the cell's target does not read is refused before anything
     * runs. {@code target} itself is always the target's own.
     */
    boolean uses(String key);

    /**
     * Checks {@code config} (its {@code target} block and every key this target reads) before anything runs;
     * {@link dev.kvlab.harness.api.input.BadInputException} naming {@code origin.apply(key)} ({@code FILE:LINE} or
     * {@code --set k=v}, null when unknown) and the key. May check that the target is reachable.
     */
    void validate(RunConfig config, Function<String, String> origin);

    /** Runs one cell of {@code config} (validated); wall time counts from {@code wallStartNanos}. */
    CellResult run(RunConfig config, long wallStartNanos, CellObserver observer);

    /**
     * Why cells of {@code config} have no sim twin to predict their capacity with, or null when they have one
     * ({@link #calibrate}). None by default.
     */
    default String noTwin(RunConfig config) {
        return "the " + kind() + " target has no twin";
    }

    /**
     * Measures the engine {@code config}'s cells run on (validated) and fits its twin: a roofline "hardware" from the
     * engine's own answers, its scheduling and the store path. Takes seconds; run before the cell's capacity search so
     * that the twin's prediction is written before the engine's capacity is measured. Only when {@link #noTwin} is null.
     */
    default dev.kvlab.harness.api.twin.TwinCalibration calibrate(RunConfig config) {
        throw new UnsupportedOperationException(noTwin(config));
    }

    /**
     * What the cell's serving costs per hour (all its instances), as the config gives it ({@code target.price_per_hour}
     * per instance), NaN when it gives none.
     */
    default double pricePerHour(RunConfig config) {
        return Double.NaN;
    }

    /**
     * Whether cells of this target can be split by requests over hosts ({@code --split requests}): each host sends its
     * share of one request stream to the same engines (false by default: the target's engine state is one host's).
     */
    default boolean splitsRequests() {
        return false;
    }

    /** A key (of {@link #calibrationKey}) that cells with equal keys share one calibration by: the whole target block by default. */
    default String calibrationKey(RunConfig config) {
        return String.valueOf(config.target()) + "|" + config.transport() + "|" + config.store();
    }
}
