package dev.kvlab.cli;

import dev.kvlab.workloads.TraceAnalyzer;
import dev.kvlab.workloads.api.LruCapacity;
import dev.kvlab.workloads.api.TraceAnalysis;
import dev.kvlab.workloads.api.TraceAnalysisReport;
import dev.kvlab.workloads.api.TraceFormat;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code kvlab analyze TRACE.jsonl}: what a Mooncake trace says about KV reuse before any system runs: request and
 * token statistics, ideal (infinite-cache) hit ratio, an LRU miss-ratio curve over capacities given as fractions of
 * the distinct blocks, and the reuse-distance histogram. Semantics: {@link TraceAnalyzer}.
 */
@Command(
        name = "analyze",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Analyzes a Mooncake trace (JSONL: timestamp, input_length, output_length, hash_ids): request and token "
                    + "statistics, the ideal (infinite-cache) prefix hit ratio, an LRU miss-ratio curve and the "
                    + "reuse-distance histogram.",
            "Hit blocks of a request = longest prefix of its hash_ids present before it touches the cache; token hits "
                    + "= min(block_tokens * hit blocks, input_length). LRU capacity = floor(f * distinct blocks), or "
                    + "floor(tokens / block_tokens) for a capacity in tokens (3Mtok = 3,000,000 tokens)."
        },
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:ok", "2:bad input (the error names FILE:LINE)"})
public final class AnalyzeCommand implements Callable<Integer> {

    static final String DEFAULT_CAPACITIES = "1%,5%,10%,25%,50%";

    @Parameters(index = "0", paramLabel = "TRACE.jsonl", description = "Mooncake JSONL trace (.gz is decompressed)")
    Path trace;

    @Option(
            names = "--block-tokens",
            paramLabel = "N",
            description = "tokens per block (default: the lines' block_tokens field, else 512)")
    Integer blockTokens;

    @Option(
            names = "--capacities",
            paramLabel = "C[,C...]",
            split = ",",
            converter = CapacityConverter.class,
            defaultValue = DEFAULT_CAPACITIES,
            description =
                    "LRU capacities: fractions of the distinct blocks (1%% or 0.01) or tokens (3Mtok, 50Mtok; decimal "
                            + "K/M/G) (default: 1%%,5%%,10%%,25%%,50%%)")
    List<LruCapacity> capacities;

    @Option(names = "--json", description = "print one JSON object on stdout")
    boolean json;

    @Option(
            names = "--chart",
            negatable = true,
            description = "draw the miss-ratio curve as a text chart (default: when stdout is a terminal)")
    Boolean chart;

    @Option(
            names = "--ignore-unknown-fields",
            description = "skip fields other than Mooncake's and kvlab's instead of rejecting the line")
    boolean ignoreUnknownFields;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (blockTokens != null && blockTokens < 1) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--block-tokens must be >= 1, got " + blockTokens);
        }
        TraceFormat format = TraceFormat.defaults()
                .withIgnoreUnknownFields(ignoreUnknownFields)
                .withBlockTokens(blockTokens == null ? 0 : blockTokens);
        TraceAnalyzer analyzer = TraceAnalyzer.read(trace, format);
        TraceAnalysis a;
        try {
            a = analyzer.finishCapacities(capacities);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--capacities: " + e.getMessage());
        }
        Integer uniformBlockTokens =
                analyzer.uniformBlockTokens() > 0 ? analyzer.uniformBlockTokens() : null; // null: sizes differ
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(TraceAnalysisReport.json(trace, a, uniformBlockTokens));
        } else {
            TraceAnalysisReport.table(out, trace, a, capacities, uniformBlockTokens);
            boolean draw = chart != null
                    ? chart
                    : System.console() != null && System.console().isTerminal();
            if (draw) TraceAnalysisReport.chart(out, a);
        }
        out.flush();
        return Kvlab.EXIT_OK;
    }

    /** {@code 1%}, {@code 12.5%}, {@code 0.01} (a fraction in [0, 1], percentages converted exactly) or {@code 3Mtok} (tokens). */
    public static final class CapacityConverter implements CommandLine.ITypeConverter<LruCapacity> {
        @Override
        public LruCapacity convert(String value) {
            try {
                return LruCapacity.parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
