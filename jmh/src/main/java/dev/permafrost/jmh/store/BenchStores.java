/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh.store;

import dev.permafrost.blob.BlobMetadata;
import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStores;
import dev.permafrost.sample.Dataset;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The blob stores a benchmark reads snapshots from: the data set's filesystem repository, or a copy of it on an
 * S3-compatible server (MinIO) named by environment variables. The S3 backend is found at run time through
 * {@link BlobStores#open(URI)}, so the benchmarks compile without it.
 */
public final class BenchStores {
  /** Environment variables of the S3 runs (those {@code scripts/servers/minio.sh} prints). */
  public static final String ENDPOINT = "PERMAFROST_S3_ENDPOINT";
  public static final String ACCESS_KEY = "PERMAFROST_S3_ACCESS_KEY";
  public static final String SECRET_KEY = "PERMAFROST_S3_SECRET_KEY";
  /** The bucket (it must exist); default {@code permafrost-tests}, the one the S3 tests create. */
  public static final String BUCKET = "PERMAFROST_BENCH_S3_BUCKET";

  private BenchStores() {}

  /** Whether an S3 endpoint is configured. */
  public static boolean s3Configured() {
    String endpoint = System.getenv(ENDPOINT);
    return endpoint != null && !endpoint.isBlank();
  }

  /**
   * Opens the store named {@code kind}: {@code fs} (the data set's own repository) or {@code s3} (a copy on the
   * server at {@code $PERMAFROST_S3_ENDPOINT}, uploaded on first use under {@code bench/<data set id>/}).
   */
  public static BlobStore open(Dataset dataset, String kind) throws IOException {
    return switch (kind) {
      case "fs" -> dataset.openStore();
      case "s3" -> openS3(dataset);
      default -> throw new IllegalArgumentException("unknown store '" + kind + "': use fs or s3");
    };
  }

  private static BlobStore openS3(Dataset dataset) throws IOException {
    if (!s3Configured()) {
      throw new IllegalStateException(
          ENDPOINT + " is not set: start MinIO with scripts/test-servers.sh start, then"
              + " eval \"$(scripts/test-servers.sh env)\" before running the s3 benchmarks");
    }
    String bucket = System.getenv().getOrDefault(BUCKET, "permafrost-tests");
    URI uri = URI.create("s3://" + bucket + "/bench/" + dataset.spec().id()
        + "?endpoint=" + enc(System.getenv(ENDPOINT))
        + "&access_key=" + enc(System.getenv().getOrDefault(ACCESS_KEY, ""))
        + "&secret_key=" + enc(System.getenv().getOrDefault(SECRET_KEY, "")));
    BlobStore s3 = BlobStores.open(uri);
    try (BlobStore local = dataset.openStore()) {
      copyMissing(local, s3);
    } catch (IOException | RuntimeException e) {
      s3.close();
      throw e;
    }
    return s3;
  }

  /** Copies to {@code to} every blob of {@code from} that it lacks (same name and length), manifests last. */
  static void copyMissing(BlobStore from, BlobStore to) throws IOException {
    List<BlobMetadata> have = to.list("");
    List<BlobMetadata> want = from.list("");
    for (boolean manifests : new boolean[] {false, true}) {
      for (BlobMetadata blob : want) {
        if (blob.name().startsWith("snapshots/") != manifests || have.contains(blob)) {
          continue;
        }
        try (InputStream in = from.read(blob.name())) {
          to.write(blob.name(), in, blob.length());
        }
      }
    }
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
