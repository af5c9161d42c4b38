package dev.kvlab.harness.openai.internal;

/**
 * What a {@code cache_state: hot} cell proved about the engine's cache, in words, from what the engine reported per
 * response in the warm-up and in the measured phase (which replays the warm-up's prompts) beside what their requests
 * repeated: a hit is verified only by cached tokens beyond the special tokens every prompt shares (a BOS matched
 * alone is no hit), and "it does not cache" is said only where requests repeated prefixes it could have hit. One rule
 * with the cold protocol ({@link CacheStateProtocol}): a prompt counts as cached when more than its special tokens are.
 */
final class HotVerification {

    private HotVerification() {}

    static String of(EngineServer.Evidence warm, EngineServer.Evidence measured, int specialTokens) {
        long responses = warm.responses() + measured.responses();
        if (responses == 0) return "not verified: no request was answered";
        if (warm.cachedReported() + measured.cachedReported() == 0)
            return "not verified: the engine reports no cached-token counts (usage.prompt_tokens_details.cached_tokens, timings.cache_n)";
        for (EngineServer.Evidence e : new EngineServer.Evidence[] {warm, measured}) {
            if (e.cachedNegative() > 0)
                return "not verified: the engine's cached-token counts are impossible (" + e.cachedNegative()
                        + " negative, e.g. " + e.cachedNegativeExample() + ")";
            if (e.cachedAbovePrompt() > 0)
                return "not verified: the engine's cached-token counts are impossible (" + e.cachedAbovePrompt()
                        + " above the prompt's, e.g. " + e.cachedAbovePromptExample() + ")";
        }
        long repeated = warm.repeatedPrefixTokens() + measured.repeatedPrefixTokens();
        long longest = Math.max(warm.longestRepeatedPrefix(), measured.longestRepeatedPrefix());
        String what = "; the requests repeated " + repeated + " prompt tokens of earlier ones (prefixes up to "
                + longest + " tokens)";
        if (warm.cachedBeyondSpecial() + measured.cachedBeyondSpecial() > 0)
            return "hits verified: cached prompt tokens beyond the " + specialTokens
                    + " special token(s) every prompt shares in "
                    + warm.cachedBeyondSpecial() + " of " + warm.responses() + " warm-up and "
                    + measured.cachedBeyondSpecial() + " of "
                    + measured.responses() + " measured responses (up to "
                    + Math.max(warm.maxCached(), measured.maxCached()) + " per response)" + what;
        if (repeated == 0)
            return "not verified: no request repeated a prefix of an earlier one (nothing an engine could hit); the engine reported "
                    + (warm.cachedTokens() + measured.cachedTokens()) + " cached prompt tokens";
        long most = Math.max(warm.maxCached(), measured.maxCached());
        if (most > 0)
            return "no hits beyond the special tokens: at most " + most + " cached token(s) per response (the "
                    + specialTokens + " special token(s) every prompt shares)" + what
                    + ": it does not cache, or caches in units longer than " + longest + " tokens";
        return "no hits: the engine reported 0 cached prompt tokens over " + responses + " responses" + what
                + ": it does not cache, or caches in units longer than " + longest + " tokens";
    }
}
