/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */

/**
 * The Google Cloud Storage backend: snapshot repositories in a GCS bucket, below an optional prefix, opened by URI as
 * {@code gs://bucket/prefix?setting=value} ({@link dev.permafrost.blob.gcs.GcsBlobStoreProvider}, found by
 * {@link dev.permafrost.blob.BlobStores#open(java.net.URI)}) or with
 * {@link dev.permafrost.blob.gcs.GcsBlobStore#builder()}, which can also take the application's own
 * {@code Storage} client or {@code Credentials}. Works against GCS itself, a private endpoint, or an emulator such as
 * fake-gcs-server.
 *
 * <p>{@link dev.permafrost.blob.gcs.GcsBlobStore} is the store, on core's {@link dev.permafrost.blob.AbstractBlobStore};
 * {@link dev.permafrost.blob.gcs.GcsSettings} names its settings, with their defaults and checks. Inside, the
 * google-cloud-storage client makes one attempt per request (retries, deadlines and limits are the
 * {@link dev.permafrost.blob.StorePolicy}'s), its failures become {@link dev.permafrost.blob.BlobStoreException}s
 * that say whether they are retryable, and its HTTP requests go through the JDK's HTTP client, so that a read can be
 * aborted from another thread.
 */
package dev.permafrost.blob.gcs;
