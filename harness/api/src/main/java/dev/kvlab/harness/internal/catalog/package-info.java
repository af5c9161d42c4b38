/**
 * harness/api's catalog implementation, used through the entry {@link dev.kvlab.harness.Catalogs}: reading the
 * built-in and user catalog YAML files into a {@link dev.kvlab.harness.api.catalog.Catalog}.
 */
package dev.kvlab.harness.internal.catalog;
