/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */

/**
 * Object storage as a snapshot repository needs it: the {@link dev.permafrost.blob.BlobStore} SPI, backends found by
 * URI scheme ({@link dev.permafrost.blob.BlobStores}, {@link dev.permafrost.blob.BlobStoreProvider}), the built-in
 * filesystem store, and what happens when a store misbehaves: {@link dev.permafrost.blob.StorePolicy} (deadlines,
 * retries, hedging, rate and request limits) applied as a stack of {@link dev.permafrost.blob.FilterBlobStore}s, and
 * {@link dev.permafrost.blob.BlobStoreException}s that say whether a failure may pass if retried.
 */
package dev.permafrost.blob;
