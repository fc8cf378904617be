/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.BlobStores;
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
 * The setting names: the ones shared with the other backends (the old names of two of them are unknown settings), and
 * the credentials settings that contradict each other.
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
  void theOldNamesOfRenamedSettingsAreUnknown() {
    for (String old : List.of("connection_timeout", "multipart_threshold")) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> BlobStores.open(URI.create("s3://b/p?endpoint=" + NOWHERE + "&" + old + "=2")));
      assertTrue(e.getMessage().contains("unknown") && e.getMessage().contains(old), e.getMessage());
    }
  }

  @Test
  void thresholdsOutOfRangeNameTheSettingGiven() {
    for (String[] bad : new String[][] {
        {"single_upload_threshold", "-1"}, {"single_upload_threshold", "2gb"}}) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> parse(Map.of(bad[0], bad[1])));
      assertTrue(e.getMessage().contains("'" + bad[0] + "'"), e.getMessage());
    }
    assertEquals(0, parse(Map.of("single_upload_threshold", "0")).singleUploadThreshold);
    assertEquals(1L << 30, parse(Map.of("single_upload_threshold", "1gb")).singleUploadThreshold);
  }

  @Test
  void aBlobOneByteOverTheThresholdIsAMultipartUpload() throws IOException {
    S3TestStores.ensureBucket();
    try (S3BlobStore store = S3BlobStore.builder().bucket(S3TestStores.BUCKET).prefix("threshold-" + UUID.randomUUID())
        .endpoint(S3TestStores.endpoint()).credentials(S3TestStores.accessKey(), S3TestStores.secretKey())
        .singleUploadThreshold((5L << 20) - 1).partSize(5L << 20).build()) {
      byte[] over = new byte[5 << 20];
      store.write("over", new ByteArrayInputStream(over), over.length);
      store.write("at", new ByteArrayInputStream(over, 1, over.length - 1), over.length - 1);
      String overTag = store.client().headObject(b -> b.bucket(store.bucket()).key(store.prefix() + "over")).eTag();
      String atTag = store.client().headObject(b -> b.bucket(store.bucket()).key(store.prefix() + "at")).eTag();
      assertTrue(overTag.replace("\"", "").endsWith("-1"), "expected a one-part multipart upload, ETag " + overTag);
      assertFalse(atTag.contains("-"), "expected a single PUT, ETag " + atTag);
      store.deleteAll(List.of("over", "at"));
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
