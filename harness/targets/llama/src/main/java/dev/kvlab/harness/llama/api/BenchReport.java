package dev.kvlab.harness.llama.api;

/**
 * What one of the engine's benchmarks ({@code kvlab bench engine}, {@code kvlab bench handover}) found, as the command
 * prints it.
 *
 * @param fields the result's figures, a record Jackson writes as {@code --json}'s object (its fields in order)
 * @param text   the result in words, as the command prints it without {@code --json} (whole lines)
 * @param failed some side served nothing or failed a request: the figures answer nothing (exit 1)
 */
public record BenchReport(Record fields, String text, boolean failed) {}
