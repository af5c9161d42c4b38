package dev.kvlab.cli;

import dev.kvlab.harness.Gguf;
import dev.kvlab.harness.api.ReportJson;
import dev.kvlab.harness.api.gguf.SynthReport;
import dev.kvlab.harness.api.gguf.SynthResult;
import dev.kvlab.harness.api.gguf.SynthSpec;
import dev.kvlab.harness.api.gguf.WeightType;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.input.OutputFile;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code kvlab model synth}: writes a GGUF Llama model with seeded random weights (see {@link Gguf#synth}). */
@Command(
        name = "synth",
        mixinStandardHelpOptions = true,
        description =
                "Writes a GGUF (v3) Llama-architecture model with seeded random weights and a tokenizer whose words "
                        + "(a..z, aa..zz, aaa..zzz) are single tokens, for llama.cpp / llama-server. Deterministic: the same "
                        + "arguments give the same bytes. Text of N tokens: ' w1 w2 ... wN' (BOS added by the server).")
public final class ModelSynthCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--layers", required = true, description = "transformer blocks")
    int layers;

    @Option(names = "--hidden", required = true, description = "embedding size (heads × head_dim)")
    int hidden;

    @Option(names = "--heads", required = true, description = "attention (query) heads")
    int heads;

    @Option(names = "--kv-heads", required = true, description = "KV heads (GQA; divides --heads)")
    int kvHeads;

    @Option(names = "--ff", required = true, description = "feed-forward size")
    int ff;

    @Option(
            names = "--vocab",
            defaultValue = "32000",
            description = "vocabulary size (at least 988) [${DEFAULT-VALUE}]")
    int vocab;

    @Option(
            names = "--dtype",
            defaultValue = "f16",
            description = "weights: f16 or q8_0 (norms stay f32) [${DEFAULT-VALUE}]")
    String dtype;

    @Option(names = "--seed", defaultValue = "0", description = "seed of the random weights [${DEFAULT-VALUE}]")
    long seed;

    @Option(names = "--context", defaultValue = "8192", description = "llama.context_length [${DEFAULT-VALUE}]")
    int context;

    @Option(names = "--out", required = true, description = "the .gguf file to write (replaced if it exists)")
    Path out;

    @Option(names = "--json", description = "print one JSON object")
    boolean json;

    @Override
    public Integer call() throws Exception {
        SynthSpec s = new SynthSpec(layers, hidden, heads, kvHeads, ff, vocab, WeightType.parse(dtype), seed, context);
        if (Files.isDirectory(out))
            throw new ParameterException(spec.commandLine(), "--out " + out + " is a directory; give a file name");
        Path dir = out.toAbsolutePath().getParent();
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new BadInputException("--out " + out + ": cannot create its directory " + dir + " ("
                    + e.getClass().getSimpleName() + ")");
        }
        OutputFile.checkWritable("--out", out, "GGUF model");
        SynthResult r;
        try {
            r = Gguf.synth(s, out);
        } catch (IOException e) {
            throw new IOException("--out " + out + ": writing the model failed: " + e, e);
        }
        PrintWriter w = spec.commandLine().getOut();
        if (json) {
            w.println(ReportJson.write(SynthReport.of(s, r)));
        } else {
            w.print(SynthReport.of(s, r).text());
        }
        w.flush();
        return Kvlab.EXIT_OK;
    }
}
