package dev.kvlab.harness.llama.api;

import java.util.Map;

/**
 * What one of the engine's benchmarks ({@code kvlab bench engine}, {@code kvlab bench handover}) found, as the command
 * prints it.
 *
 * @param fields the result's figures in order, as {@code --json} writes them
 * @param text   the result in words, as the command prints it without {@code --json} (whole lines)
 * @param failed some side served nothing or failed a request: the figures answer nothing (exit 1)
 */
public record BenchReport(Map<String, Object> fields, String text, boolean failed) {}
