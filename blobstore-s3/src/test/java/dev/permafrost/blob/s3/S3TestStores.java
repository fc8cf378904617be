/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.s3;

import static org.junit.jupiter.api.Assertions.fail;

import dev.permafrost.blob.BlobStore;
import java.net.URI;
import java.time.Duration;
import java.util.UUID;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketAlreadyOwnedByYouException;

/**
 * Stores on the MinIO started by {@code scripts/servers/minio.sh} (through {@code scripts/test-servers.sh} or
 * {@code scripts/test}), which exports {@code PERMAFROST_S3_ENDPOINT}, {@code PERMAFROST_S3_ACCESS_KEY} and
 * {@code PERMAFROST_S3_SECRET_KEY}. Without them a test fails, saying how to start the servers; it never skips.
 *
 * <p>Every store is a fresh, empty prefix in the shared test bucket {@value #BUCKET}, with test-sized settings:
 * one PUT up to 5 MiB - 1 byte, multipart from 5 MiB in 5 MiB parts (MinIO's smallest), and list pages of
 * {@value #LIST_PAGE_SIZE} keys.
 */
public final class S3TestStores {
  /** The bucket every test store lives in; created on first use. */
  public static final String BUCKET = "permafrost-tests";
  /** The list page size of test stores: small, so that listings page. */
  public static final int LIST_PAGE_SIZE = 7;
  /** The part size of test stores; blobs of this size and more are multipart uploads. */
  public static final long PART_SIZE = 5L << 20;
  /** The single upload threshold of test stores: blobs of {@link #PART_SIZE} are multipart uploads. */
  public static final long SINGLE_UPLOAD_THRESHOLD = PART_SIZE - 1;

  private static volatile boolean bucketCreated;

  private S3TestStores() {}

  /** A new, empty store: a fresh prefix in the test bucket on the running MinIO. */
  public static BlobStore newStore() {
    return builder().build();
  }

  /** A builder for a fresh prefix in the test bucket, with the endpoint, credentials and test-sized settings. */
  public static S3BlobStore.Builder builder() {
    ensureBucket();
    return baseBuilder().bucket(BUCKET).prefix("test-" + UUID.randomUUID());
  }

  /** A builder with the endpoint, credentials and test-sized settings but no bucket nor prefix. */
  public static S3BlobStore.Builder baseBuilder() {
    return S3BlobStore.builder()
        .endpoint(endpoint())
        .credentials(accessKey(), secretKey())
        .connectTimeout(Duration.ofSeconds(5))
        .readTimeout(Duration.ofSeconds(60))
        .singleUploadThreshold(SINGLE_UPLOAD_THRESHOLD)
        .partSize(PART_SIZE)
        .listPageSize(LIST_PAGE_SIZE);
  }

  /**
   * A client of the application's own, on the running MinIO, as the README advises: one attempt per request (the
   * store policy retries), the Apache HTTP client (closing a stream early aborts its request). The caller closes it.
   */
  public static S3Client newClient() {
    return S3Client.builder()
        .endpointOverride(URI.create(endpoint()))
        .region(Region.US_EAST_1)
        .forcePathStyle(true)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey(), secretKey())))
        .httpClientBuilder(Apache5HttpClient.builder().connectionTimeout(Duration.ofSeconds(5)))
        .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()))
        .build();
  }

  /** The MinIO endpoint, e.g. {@code http://127.0.0.1:19000}. */
  public static String endpoint() {
    return env("PERMAFROST_S3_ENDPOINT");
  }

  /** The MinIO access key. */
  public static String accessKey() {
    return env("PERMAFROST_S3_ACCESS_KEY");
  }

  /** The MinIO secret key. */
  public static String secretKey() {
    return env("PERMAFROST_S3_SECRET_KEY");
  }

  private static String env(String name) {
    String value = System.getenv(name);
    if (value == null || value.isBlank()) {
      fail(name + " is not set: the S3 tests need the local MinIO. Start the servers with"
          + " scripts/test-servers.sh start and eval \"$(scripts/test-servers.sh env)\", or run scripts/test");
    }
    return value;
  }

  /** Creates the test bucket {@value #BUCKET} if needed (once per run). */
  public static synchronized void ensureBucket() {
    if (bucketCreated) {
      return;
    }
    try (S3Client admin = newClient()) {
      try {
        admin.createBucket(b -> b.bucket(BUCKET));
      } catch (BucketAlreadyOwnedByYouException e) {
        // created by an earlier run against the same server
      }
    }
    bucketCreated = true;
  }
}
