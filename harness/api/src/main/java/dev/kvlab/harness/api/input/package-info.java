/** Reading what users write: YAML trees that remember FILE:LINE, binding them to records, and the error that names the place (exit 2). */
package dev.kvlab.harness.api.input;
