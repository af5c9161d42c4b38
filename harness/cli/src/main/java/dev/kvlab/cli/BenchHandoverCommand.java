package dev.kvlab.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvlab.harness.llama.api.EngineUnavailableException;
import dev.kvlab.harness.llama.internal.realkv.HandoverBench;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvlab bench handover}: a PD handover over the direct path, part by part, beside the transport's own WRITE and the restore path. */
@Command(name = "handover", mixinStandardHelpOptions = true,
        description = "One prefill/decode handover of a prompt's KV on llama.cpp in-process, as the llama.cpp target's pd_transfer: direct does "
                + "it (split into block objects, WRITE into the decode side's registered slot, verification, restore), part by part, beside "
                + "the same transport's own WRITE of the same bytes and the decode side's restore path from local memory. Medians over --reps. "
                + "rdma-emu results are EMULATED (a NIC model).")
public final class BenchHandoverCommand implements Callable<Integer> {

    @Option(names = "--model", required = true, paramLabel = "FILE", description = "GGUF model file") Path model;
    @Option(names = "--tokens", defaultValue = "2048", description = "prompt tokens handed over [${DEFAULT-VALUE}]") int tokens;
    @Option(names = "--block-tokens", defaultValue = "64", description = "tokens per block object [${DEFAULT-VALUE}]") int blockTokens;
    @Option(names = "--transport", defaultValue = "tcp", description = "tcp, shm, local or rdma-emu [${DEFAULT-VALUE}]") String transport;
    @Option(names = "--link", defaultValue = "4x200gbps", description = "rdma-emu's emulated NIC [${DEFAULT-VALUE}]") String link;
    @Option(names = "--reps", defaultValue = "20", description = "measured handovers [${DEFAULT-VALUE}]") int reps;
    @Option(names = "--threads", defaultValue = "1", description = "threads per context [${DEFAULT-VALUE}]") int threads;
    @Option(names = "--json", description = "print one JSON object") boolean json;

    @Override
    public Integer call() throws Exception {
        HandoverBench.Settings s = new HandoverBench.Settings(model, tokens, blockTokens, transport, link, reps, threads);
        HandoverBench.Result r;
        try {
            r = HandoverBench.run(s, System.err);
        } catch (EngineUnavailableException e) {
            System.err.println("kvlab bench handover: " + e.getMessage());
            return Kvlab.EXIT_BAD_INPUT;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("transport", r.transport() + (r.emulated() ? " (emulated NIC)" : ""));
        m.put("tokens", r.tokens());
        m.put("bytes", r.bytes());
        m.put("objects", r.objects());
        m.put("split_ms", r.splitMs());
        m.put("transfer_ms", r.transferMs());
        m.put("digest_ms", r.digestMs());
        m.put("verify_ms", r.verifyMs());
        m.put("restore_ms", r.restoreMs());
        m.put("handover_ms", r.handoverMs());
        m.put("raw_transfer_ms", r.rawTransferMs());
        m.put("restore_path_ms", r.restorePathMs());
        m.put("transfer_gb_per_s", r.gbPerS(r.transferMs()));
        m.put("raw_transfer_gb_per_s", r.gbPerS(r.rawTransferMs()));
        m.put("transfer_vs_raw", r.transferRatio());
        m.put("added_to_restore_path", r.addedToRestorePath());
        if (json) System.out.println(new ObjectMapper().writeValueAsString(m));
        else {
            System.out.printf(Locale.ROOT, "handover of %d tokens (%d bytes in %d objects) over %s, medians:%n", r.tokens(), r.bytes(), r.objects(),
                    m.get("transport"));
            System.out.printf(Locale.ROOT, "  split %.3f ms, audit digest %.3f ms, WRITE %.3f ms (%.2f GB/s), verify %.3f ms, restore %.3f ms: %.3f ms in all%n",
                    r.splitMs(), r.digestMs(), r.transferMs(), r.gbPerS(r.transferMs()), r.verifyMs(), r.restoreMs(), r.handoverMs());
            System.out.printf(Locale.ROOT, "  the transport's own WRITE of the same bytes (its own engine pair, interleaved) %.3f ms (%.2f GB/s): the handover's moves at %.2fx%n",
                    r.rawTransferMs(), r.gbPerS(r.rawTransferMs()), r.transferRatio());
            System.out.printf(Locale.ROOT, "  restore path from local memory (verify + restore) %.3f ms: the handover (WRITE + verify + restore) adds %.0f%%%n",
                    r.restorePathMs(), 100 * r.addedToRestorePath());
        }
        return Kvlab.EXIT_OK;
    }
}
