/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */

/**
 * The Azure Blob Storage backend: snapshots in a container, below an optional prefix, as {@code
 * azblob://container/prefix}, on the {@code azure-storage-blob} SDK (to Azure itself, Azurite, sovereign clouds or
 * private endpoints).
 *
 * <ul>
 *   <li>{@link dev.permafrost.blob.azure.AzureBlobStore}: the store, opened by URI through {@link
 *       dev.permafrost.blob.BlobStores#open(java.net.URI)} or with its builder, which also takes a {@code
 *       TokenCredential} or an SDK client of the application's own ("bring your own client");
 *   <li>{@link dev.permafrost.blob.azure.AzureSettings}: the settings' names (shared with the other backends where
 *       they mean the same thing), defaults and checks;
 *   <li>{@link dev.permafrost.blob.azure.AzureBlobStoreProvider}: finds the backend by its {@code azblob} scheme.
 * </ul>
 *
 * <p>Inside: {@code AzureBlobInputStream} reads a blob in ranged GETs on the SDK's asynchronous client, so that
 * closing a stream from another thread (the store policy's deadline) aborts its request; {@code AzureErrors} turns
 * the SDK's exceptions into {@link dev.permafrost.blob.BlobStoreException}s that say what to check and whether a
 * retry may pass; {@code DefaultCredential} loads the default credential chain from the optional {@code
 * azure-identity} dependency. The SDK makes one attempt per request: retries, deadlines, hedging and limits are the
 * {@link dev.permafrost.blob.StorePolicy}'s.
 */
package dev.permafrost.blob.azure;
