package dev.kvlab.harness.api.catalog;

/** What {@code kvlab plan} says first about the model it sizes: its catalog entry or dimensions ({@link ModelShape}), or its GGUF file ({@link GgufShape}). */
public sealed interface PlanModel permits ModelShape, GgufShape {}
