/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStores;
import dev.permafrost.blob.FilterBlobStore;
import dev.permafrost.blob.StoreSettings;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The setting names: the ones shared with the other backends, the deprecated old names (accepted, with their old
 * meaning, but not together with the new ones), and the credentials settings that contradict each other.
 */
class S3SettingsTest {
  private static final String NOWHERE = "http://127.0.0.1:1";

  private static S3Settings parse(Map<String, String> values) {
    return S3Settings.parse(new StoreSettings("s3", values));
  }

  @Test
  void theNamesAreThoseOfTheOtherBackends() {
    assertEquals(
        List.of("endpoint", "connect_timeout", "read_timeout", "list_page_size", "max_connections",
            "single_upload_threshold", "part_size"),
        List.of(S3Settings.ENDPOINT, S3Settings.CONNECT_TIMEOUT, S3Settings.READ_TIMEOUT, S3Settings.LIST_PAGE_SIZE,
            S3Settings.MAX_CONNECTIONS, S3Settings.SINGLE_UPLOAD_THRESHOLD, S3Settings.PART_SIZE));
    S3Settings defaults = parse(Map.of());
    assertEquals(Duration.ofSeconds(10), defaults.connectTimeout);
    assertEquals(Duration.ofSeconds(50), defaults.readTimeout);
    assertEquals(16L << 20, defaults.singleUploadThreshold);
    assertEquals(8L << 20, defaults.partSize);
    assertEquals(1000, defaults.listPageSize);
    assertEquals(50, defaults.maxConnections);
  }

  @Test
  void deprecatedNamesAreAcceptedWithTheirOldMeaning() throws IOException {
    S3Settings old = parse(Map.of("connection_timeout", "2s", "multipart_threshold", "20mb"));
    assertEquals(Duration.ofSeconds(2), old.connectTimeout);
    // "At least 20mb is split" is "at most 20mb - 1 byte goes in one request".
    assertEquals((20L << 20) - 1, old.singleUploadThreshold);

    S3Settings current = parse(Map.of("connect_timeout", "3s", "single_upload_threshold", "20mb"));
    assertEquals(Duration.ofSeconds(3), current.connectTimeout);
    assertEquals(20L << 20, current.singleUploadThreshold);

    try (BlobStore opened = BlobStores.open(URI.create(
        "s3://b/p?endpoint=" + NOWHERE + "&connection_timeout=2s&multipart_threshold=1mb"))) {
      S3BlobStore s3 = assertInstanceOf(S3BlobStore.class, FilterBlobStore.unwrap(opened));
      assertEquals((1L << 20) - 1, s3.singleUploadThreshold());
      @SuppressWarnings("deprecation")
      long multipartThreshold = s3.multipartThreshold();
      assertEquals(1L << 20, multipartThreshold);
    }
    try (S3BlobStore built = S3BlobStore.builder().bucket("b").endpoint(NOWHERE)
        .setting("connection_timeout", "2s").setting("multipart_threshold", "1").build()) {
      assertEquals(0, built.singleUploadThreshold(), "multipart_threshold=1: only empty blobs in one PUT");
    }
  }

  @Test
  @SuppressWarnings("deprecation")
  void deprecatedBuilderMethodsDelegateToTheNewOnes() throws IOException {
    try (S3BlobStore store = S3BlobStore.builder().bucket("b").endpoint(NOWHERE)
        .connectionTimeout(Duration.ofSeconds(2)).multipartThreshold(6L << 20).build()) {
      assertEquals((6L << 20) - 1, store.singleUploadThreshold());
      assertEquals(6L << 20, store.multipartThreshold());
    }
    assertThrows(IllegalArgumentException.class, () -> S3BlobStore.builder().multipartThreshold(0));
  }

  @Test
  void anOldAndANewNameTogetherAreRefused() {
    for (String query : List.of("connection_timeout=2s&connect_timeout=3s", "multipart_threshold=8mb&single_upload_threshold=8mb")) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> BlobStores.open(URI.create("s3://b/p?endpoint=" + NOWHERE + "&" + query)));
      for (String pair : query.split("&")) {
        String name = pair.substring(0, pair.indexOf('='));
        assertTrue(e.getMessage().contains("'" + name + "'"), e.getMessage());
      }
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> S3BlobStore.builder().bucket("b").endpoint(NOWHERE).connectTimeout(Duration.ofSeconds(1))
            .setting("connection_timeout", "2s").build());
    assertTrue(e.getMessage().contains("connection_timeout") && e.getMessage().contains("connect_timeout"), e.getMessage());
  }

  @Test
  void thresholdsOutOfRangeNameTheSettingGiven() {
    for (String[] bad : new String[][] {
        {"single_upload_threshold", "-1"}, {"single_upload_threshold", "2gb"}, {"multipart_threshold", "0"},
        {"multipart_threshold", "2gb"}}) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> parse(Map.of(bad[0], bad[1])));
      assertTrue(e.getMessage().contains("'" + bad[0] + "'"), e.getMessage());
    }
    assertEquals(0, parse(Map.of("single_upload_threshold", "0")).singleUploadThreshold);
    assertEquals(1L << 30, parse(Map.of("single_upload_threshold", "1gb")).singleUploadThreshold);
  }

  @Test
  void aBlobAtTheOldThresholdIsStillAMultipartUpload() throws IOException {
    S3TestStores.ensureBucket();
    try (S3BlobStore store = S3BlobStore.builder().bucket(S3TestStores.BUCKET).prefix("old-threshold-" + UUID.randomUUID())
        .endpoint(S3TestStores.endpoint()).credentials(S3TestStores.accessKey(), S3TestStores.secretKey())
        .setting("multipart_threshold", "5mb").partSize(5L << 20).build()) {
      assertEquals((5L << 20) - 1, store.singleUploadThreshold());
      byte[] atThreshold = new byte[5 << 20];
      store.write("at", new ByteArrayInputStream(atThreshold), atThreshold.length);
      store.write("below", new ByteArrayInputStream(atThreshold, 1, atThreshold.length - 1), atThreshold.length - 1);
      String at = store.client().headObject(b -> b.bucket(store.bucket()).key(store.prefix() + "at")).eTag();
      String below = store.client().headObject(b -> b.bucket(store.bucket()).key(store.prefix() + "below")).eTag();
      assertTrue(at.replace("\"", "").endsWith("-1"), "expected a one-part multipart upload, ETag " + at);
      assertFalse(below.contains("-"), "expected a single PUT, ETag " + below);
      store.deleteAll(List.of("at", "below"));
    }
  }

  @Test
  void contradictoryCredentialsSettingsAreRefusedWithoutPrintingThem() {
    String token = "session-token-" + System.nanoTime();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> parse(Map.of("session_token", token)));
    assertTrue(e.getMessage().contains("session_token") && e.getMessage().contains("access_key"), e.getMessage());
    assertFalse(e.getMessage().contains(token), e.getMessage());

    e = assertThrows(IllegalArgumentException.class,
        () -> parse(Map.of("profile", "some-profile", "access_key", "AKID", "secret_key", "very-secret")));
    assertTrue(e.getMessage().contains("profile") && e.getMessage().contains("access_key"), e.getMessage());
    assertFalse(e.getMessage().contains("some-profile") || e.getMessage().contains("very-secret"), e.getMessage());

    e = assertThrows(IllegalArgumentException.class, () -> parse(Map.of("access_key", "AKID")));
    assertTrue(e.getMessage().contains("secret_key"), e.getMessage());

    S3Settings session = parse(Map.of("access_key", "AKID", "secret_key", "s", "session_token", token));
    assertEquals(S3Settings.CredentialsSource.SESSION, session.credentialsSource);
  }
}
