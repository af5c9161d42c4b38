/** Transport implementations; not an API. */
package dev.kvlab.transport.internal;
