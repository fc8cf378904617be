/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */

/**
 * The {@code s3://bucket/prefix} blob store: snapshots in Amazon S3, or in an S3-compatible store (MinIO, Ceph RGW,
 * Cloudflare R2...) through the {@code endpoint} setting, with the AWS SDK for Java v2.
 *
 * <ul>
 *   <li>{@link dev.permafrost.blob.s3.S3BlobStore}: the store, opened by URI with
 *       {@link dev.permafrost.blob.BlobStores#open(java.net.URI)} or with
 *       {@link dev.permafrost.blob.s3.S3BlobStore#builder()}, which also takes the application's own
 *       {@code S3Client} or {@code AwsCredentialsProvider};
 *   <li>{@link dev.permafrost.blob.s3.S3Settings}: the names, defaults and meaning of its settings, the same in a
 *       URI's query and in the builder;
 *   <li>{@link dev.permafrost.blob.s3.S3BlobStoreProvider}: the {@code s3} scheme, found by
 *       {@link dev.permafrost.blob.BlobStores#open(java.net.URI)} through {@link java.util.ServiceLoader}.
 * </ul>
 *
 * <p>Retries, deadlines, hedging and rate limits are not this package's: they are the
 * {@link dev.permafrost.blob.StorePolicy} around the store, and the SDK client makes one attempt per request.
 */
package dev.permafrost.blob.s3;
