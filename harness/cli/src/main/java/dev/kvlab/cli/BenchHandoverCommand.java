package dev.kvlab.cli;

import dev.kvlab.harness.llama.LlamaCpp;
import dev.kvlab.harness.llama.api.BenchReport;
import dev.kvlab.harness.llama.api.EngineUnavailableException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code kvlab bench handover}: a PD handover over the direct path, part by part, beside the transport's own WRITE and the restore path. */
@Command(
        name = "handover",
        mixinStandardHelpOptions = true,
        description =
                "One prefill/decode handover of a prompt's KV on llama.cpp in-process, as the llama.cpp target's pd_transfer: direct does "
                        + "it (split into block objects, WRITE into the decode side's registered slot, verification, restore), part by part, beside "
                        + "the same transport's own WRITE of the same bytes and the decode side's restore path from local memory. Medians over --reps. "
                        + "rdma-emu results are EMULATED (a NIC model).")
public final class BenchHandoverCommand implements Callable<Integer> {

    @Option(names = "--model", required = true, paramLabel = "FILE", description = "GGUF model file")
    Path model;

    @Option(names = "--tokens", defaultValue = "2048", description = "prompt tokens handed over [${DEFAULT-VALUE}]")
    int tokens;

    @Option(names = "--block-tokens", defaultValue = "64", description = "tokens per block object [${DEFAULT-VALUE}]")
    int blockTokens;

    @Option(names = "--transport", defaultValue = "tcp", description = "tcp, shm, local or rdma-emu [${DEFAULT-VALUE}]")
    String transport;

    @Option(names = "--link", defaultValue = "4x200gbps", description = "rdma-emu's emulated NIC [${DEFAULT-VALUE}]")
    String link;

    @Option(names = "--reps", defaultValue = "20", description = "measured handovers [${DEFAULT-VALUE}]")
    int reps;

    @Option(names = "--threads", defaultValue = "1", description = "threads per context [${DEFAULT-VALUE}]")
    int threads;

    @Option(names = "--json", description = "print one JSON object")
    boolean json;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        BenchReport r;
        try {
            r = LlamaCpp.benchHandover(model, tokens, blockTokens, transport, link, reps, threads, System.err);
        } catch (EngineUnavailableException e) {
            spec.commandLine().getErr().println("kvlab bench handover: " + e.getMessage());
            return Kvlab.EXIT_BAD_INPUT;
        }
        BenchCommand.print(spec, r, json);
        return Kvlab.EXIT_OK;
    }
}
