/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketAlreadyOwnedByYouException;
import tools.jackson.databind.JsonNode;

/**
 * The service on a repository in MinIO through the S3 backend: the sample is snapshotted into the bucket at
 * start-up, mounted, and searched cold from S3. Needs the MinIO of {@code scripts/test-servers.sh}.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class S3RepositoryTest {
  static final String BUCKET = "permafrost-examples";
  @LocalServerPort int port;

  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry registry) throws IOException {
    String endpoint = env("PERMAFROST_S3_ENDPOINT");
    String accessKey = env("PERMAFROST_S3_ACCESS_KEY");
    String secretKey = env("PERMAFROST_S3_SECRET_KEY");
    try (S3Client admin = S3Client.builder().endpointOverride(URI.create(endpoint)).region(Region.US_EAST_1)
        .forcePathStyle(true)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey)))
        .build()) {
      admin.createBucket(b -> b.bucket(BUCKET));
    } catch (BucketAlreadyOwnedByYouException e) {
      // made by an earlier run against the same server
    }
    String home = Files.createTempDirectory("permafrost-s3-service").toString();
    String prefix = "run-" + UUID.randomUUID();
    registry.add("permafrost.home", () -> home);
    registry.add("management.endpoint.health.show-details", () -> "always"); // an operator who opts in sees them
    registry.add("permafrost.cache.size", () -> "32mb");
    registry.add("permafrost.sample.days", () -> "2");
    registry.add("permafrost.sample.events-per-day", () -> "1000");
    registry.add("permafrost.repository.uri", () -> "s3://" + BUCKET + "/" + prefix + "?endpoint=" + endpoint
        + "&access_key=" + accessKey + "&secret_key=" + secretKey);
  }

  @Test
  void theSampleIsSnapshottedIntoMinioMountedAndSearched() throws Exception {
    Http http = new Http(port);
    JsonNode health = http.get("/actuator/health/repository").ok();
    assertEquals("UP", health.get("status").asString());
    assertTrue(health.get("details").get("repository").asString().contains(BUCKET), health.toString());
    assertTrue(http.get("/snapshots").ok().get("snapshots").toString().contains("logs-nginx-2024.02.02"));

    http.awaitCacheIdle(); // a region a fill is writing survives the clear
    http.post("/cache/clear", null).ok();
    JsonNode result = http.get("/indices/logs-nginx-*/search?q=GET&from=2024-02-02&size=20").ok();
    assertEquals("[\"logs-nginx-2024.02.02\"]", result.get("indices").get("searched").toString());
    assertEquals("[\"logs-nginx-2024.02.01\"]", result.get("indices").get("skipped").toString());
    assertEquals(20, result.get("hits").size());
    assertTrue(result.get("cache").get("bytesFetched").asLong() > 0, "read cold from MinIO: " + result.get("cache"));
    assertTrue(result.get("cost").get("storeRequests").asLong() > 0, "read cold from MinIO: " + result.get("cost"));
    // the cold search may return while a fill it started still runs: let it land before the warm search, whose
    // "cache" is a delta of the cache's global counters
    http.awaitCacheIdle();
    JsonNode again = http.get("/indices/logs-nginx-*/search?q=GET&from=2024-02-02&size=20").ok();
    assertEquals(0, again.get("cost").get("storeRequests").asLong(), "then warm, by its own cost: " + again.get("cost"));
    assertEquals(0, again.get("cost").get("bytesFetched").asLong(), "then warm, by its own cost: " + again.get("cost"));
    assertEquals(0, again.get("cache").get("bytesFetched").asLong(), "then warm: " + again.get("cache"));
    assertEquals(result.get("hits"), again.get("hits"));

    JsonNode histogram = http.get("/indices/logs-nginx-*/histogram?interval=1d").ok();
    assertEquals(2000, histogram.get("total").asLong());
    // the binder reads the cache's stats at most once a second (statsMaxAge): a reading may lag by that much
    // (polled for up to 60 s, a bound that only turns a hang into a failure)
    double fetched = 0;
    for (int i = 0; i < 600 && fetched == 0; i++) {
      if (i > 0) {
        Thread.sleep(100);
      }
      fetched = http.get("/actuator/metrics/permafrost.cache.fetched").ok().get("measurements").get(0).get("value")
          .asDouble();
    }
    assertTrue(fetched > 0, "the cold search's bytes show in Actuator within the binder's stats max age");
  }

  private static String env(String name) {
    String value = System.getenv(name);
    if (value == null || value.isBlank()) {
      fail(name + " is not set: this test needs the local MinIO. Start the servers with scripts/test-servers.sh start"
          + " and eval \"$(scripts/test-servers.sh env)\", or run scripts/test");
    }
    return value;
  }
}
