package dev.kvlab.harness.openai.internal;

import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.spi.CellSpec;
import dev.kvlab.workloads.Workloads;
import dev.kvlab.workloads.api.Request;
import dev.kvlab.workloads.api.RequestSource;
import java.util.List;

/**
 * The workload's requests against the model's context, before the cell runs: a request whose prompt and output need
 * more tokens than the smallest endpoint's context is refused by the engine (it fails, counted); the count is recorded
 * ({@code prompt_context_check}), and a workload none of whose requests fits is refused before anything runs (exit 2)
 * instead of measuring nothing but refusals. Where no endpoint says its context, that is recorded.
 */
final class ContextCheck {

    private ContextCheck() {}

    /**
     * What was found.
     *
     * @param note          in words, for the manifest
     * @param longestPrompt the workload's longest prompt (tokens)
     * @param context       the smallest endpoint's context (tokens), -1 when none says
     */
    record Result(String note, int longestPrompt, int context) {}

    /** Reads the workload's requests; {@link BadInputException} when none fits the context. */
    static Result run(CellSpec spec, List<EngineInfo> infos) {
        int ctx = Integer.MAX_VALUE;
        for (EngineInfo i : infos) if (i.contextTokens() > 0) ctx = Math.min(ctx, i.contextTokens());
        long n = 0, over = 0, longest = 0;
        int longestPrompt = 0;
        try (RequestSource s = Workloads.open(
                spec.workload().spec(),
                spec.workload().namespace(),
                spec.config().seed())) {
            while (s.hasNext()) {
                Request r = s.next();
                long need = (long) r.inputTokens() + Math.max(1, r.outputTokens());
                n++;
                longest = Math.max(longest, need);
                longestPrompt = Math.max(longestPrompt, r.inputTokens());
                if (need > ctx) over++;
            }
        }
        if (ctx == Integer.MAX_VALUE)
            return new Result(
                    "unchecked: no endpoint says its model's context (llama.cpp /props n_ctx, /v1/models max_model_len)",
                    longestPrompt,
                    -1);
        if (n > 0 && over == n)
            throw new BadInputException(
                    "workload: every one of its " + n + " requests needs more tokens (prompt + output, up to " + longest
                            + ") than the model's context of " + ctx
                            + " tokens: the engine would refuse them all; shorten the workload or serve a longer context");
        if (over == 0)
            return new Result(
                    "every request fits the model's context of " + ctx + " tokens (longest " + longest
                            + ", prompt + output)",
                    longestPrompt,
                    ctx);
        return new Result(
                over + " of " + n + " requests need more than the model's context of " + ctx
                        + " tokens (prompt + output, up to " + longest
                        + "): the engine refuses them, and they are counted failed",
                longestPrompt,
                ctx);
    }
}
