/**
 * The {@code llama.cpp} target: a real engine (llama.cpp's library, in-process) serves a live cell, and its real KV
 * moves through kvlab's store as one object per block.
 */
package dev.kvlab.harness.llama.internal.realkv;
