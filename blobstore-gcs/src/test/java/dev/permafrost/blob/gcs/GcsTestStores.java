/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.gcs;

import com.google.cloud.NoCredentials;
import com.google.cloud.storage.BucketInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import dev.permafrost.blob.BlobStore;
import java.io.IOException;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * Stores on the fake-gcs-server that {@code scripts/servers/fake-gcs.sh} runs, for tests: each
 * {@link #newStore()} creates a fresh bucket, so every store starts empty. Reads the server's address from
 * {@code PERMAFROST_GCS_ENDPOINT} (and {@code PERMAFROST_GCS_PROJECT_ID}); without them, fails saying how to
 * start the server, rather than skipping.
 */
public final class GcsTestStores {
  /** The environment variable holding the emulator's endpoint. */
  public static final String ENDPOINT_ENV = "PERMAFROST_GCS_ENDPOINT";
  /** The environment variable holding the project id to use with the emulator. */
  public static final String PROJECT_ENV = "PERMAFROST_GCS_PROJECT_ID";

  private static Storage admin;

  private GcsTestStores() {}

  /** The emulator's endpoint, e.g. {@code http://127.0.0.1:14443}. */
  public static String endpoint() {
    String endpoint = System.getenv(ENDPOINT_ENV);
    if (endpoint == null || endpoint.isBlank()) {
      throw new IllegalStateException(
          ENDPOINT_ENV + " is not set, so the GCS tests have no fake-gcs-server to talk to: start the servers with"
              + " scripts/test-servers.sh start and eval \"$(scripts/test-servers.sh env)\", or run scripts/test");
    }
    return endpoint.trim();
  }

  /** The project id for the emulator. */
  public static String projectId() {
    String project = System.getenv(PROJECT_ENV);
    return project == null || project.isBlank() ? "permafrost-test" : project.trim();
  }

  /** A new, empty store: a fresh bucket with a prefix, and small upload parts and list pages. */
  public static BlobStore newStore() throws IOException {
    return newStore(Map.of());
  }

  /** A new, empty store in a fresh bucket, with these settings on top of the test defaults. */
  public static GcsBlobStore newStore(Map<String, String> settings) throws IOException {
    return builder(newBucket()).prefix("repo/root").settings(settings).build();
  }

  /**
   * A builder on the emulator for {@code bucket}, without credentials, with small parts and pages. The store it
   * builds has no store policy: each call is one attempt.
   */
  public static GcsBlobStore.Builder builder(String bucket) {
    return GcsBlobStore.builder()
        .bucket(bucket)
        .endpoint(endpoint())
        .projectId(projectId())
        .noCredentials()
        .singleUploadThreshold(1 << 20)
        .partSize(256 << 10)
        .listPageSize(25);
  }

  /** Creates a bucket with a new name on the emulator and returns the name. */
  public static synchronized String newBucket() {
    String name = "pf-test-" + UUID.randomUUID().toString().replace("-", "").substring(0, 20).toLowerCase(Locale.ROOT);
    admin().create(BucketInfo.of(name));
    return name;
  }

  /** A bucket name that no test creates. */
  public static String missingBucket() {
    return "pf-missing-" + UUID.randomUUID().toString().replace("-", "").substring(0, 20);
  }

  private static synchronized Storage admin() {
    if (admin == null) {
      admin =
          StorageOptions.http()
              .setHost(endpoint())
              .setProjectId(projectId())
              .setCredentials(NoCredentials.getInstance())
              .build()
              .getService();
    }
    return admin;
  }
}
