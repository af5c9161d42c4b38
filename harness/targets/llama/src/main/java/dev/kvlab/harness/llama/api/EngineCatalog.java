package dev.kvlab.harness.llama.api;

import dev.kvlab.harness.api.catalog.HardwareSpec;
import dev.kvlab.harness.api.catalog.ModelSpec;

/**
 * The engine measured as a roofline ({@code kvlab calibrate --engine}).
 *
 * @param yaml     the catalog file ({@code --catalog FILE}): the model and the calibrated hardware
 * @param text     the measurement, the fitted roofline and its checks, as the command prints them (whole lines)
 * @param model    the catalog model
 * @param hardware the calibrated "hardware"
 */
public record EngineCatalog(String yaml, String text, ModelSpec model, HardwareSpec hardware) {}
