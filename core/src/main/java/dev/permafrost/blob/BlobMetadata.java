/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

/** A listed blob: its name relative to the store's root, and its length in bytes. */
public record BlobMetadata(String name, long length) {}
