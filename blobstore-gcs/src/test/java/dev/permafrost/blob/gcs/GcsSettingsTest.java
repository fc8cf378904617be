/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.gcs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStores;
import dev.permafrost.blob.FilterBlobStore;
import dev.permafrost.blob.StorePolicy;
import dev.permafrost.blob.StoreSettings;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Parsing of gs:// URIs and settings; no server needed, none is contacted. */
class GcsSettingsTest {
  private static GcsSettings parse(Map<String, String> values) {
    return GcsSettings.parse(new StoreSettings("gs", values));
  }

  @Test
  void defaults() {
    GcsSettings s = parse(Map.of(GcsSettings.CREDENTIALS, "none"));
    assertEquals("https://storage.googleapis.com", s.endpoint);
    assertEquals(Duration.ofSeconds(20), s.connectTimeout);
    assertEquals(Duration.ofSeconds(20), s.readTimeout);
    assertEquals(5L << 20, s.singleUploadThreshold);
    assertEquals(16 << 20, s.partSize);
    assertEquals(1000, s.listPageSize);
    assertEquals(GcsSettings.CredentialsMode.NONE, s.credentialsMode);
    assertEquals(GcsSettings.CredentialsMode.DEFAULT, parse(Map.of()).credentialsMode);
  }

  @Test
  void valuesAreParsedWithUnits() {
    GcsSettings s = parse(Map.of(
        "endpoint", "http://127.0.0.1:4443/", "connect_timeout", "500ms", "read_timeout", "PT2M",
        "single_upload_threshold", "8mb", "part_size", "300kb", "list_page_size", "7",
        "credentials_file", "/etc/sa.json", "project_id", "p1"));
    assertEquals("http://127.0.0.1:4443", s.endpoint);
    assertEquals(Duration.ofMillis(500), s.connectTimeout);
    assertEquals(Duration.ofMinutes(2), s.readTimeout);
    assertEquals(8L << 20, s.singleUploadThreshold);
    assertEquals(512 << 10, s.partSize, "rounded up to a multiple of 256 KiB");
    assertEquals(7, s.listPageSize);
    assertEquals(GcsSettings.CredentialsMode.FILE, s.credentialsMode);
    assertEquals("p1", s.projectId);
  }

  @Test
  void theOldNamesOfRenamedSettingsAreUnknown() {
    for (String old : List.of("resumable_threshold", "resumable_chunk_size")) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> parse(Map.of("credentials", "none", old, "1mb")));
      assertTrue(e.getMessage().contains("unknown") && e.getMessage().contains(old), e.getMessage());
    }
  }

  @Test
  void settingsThatConfigureAClientAreRefusedWhenTheClientIsGiven() {
    for (String name : GcsSettings.CLIENT_SETTINGS) {
      String value = name.endsWith("timeout") ? "5s" : name.equals("endpoint") ? "http://127.0.0.1:1" : "none";
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> GcsSettings.parse(new StoreSettings("gs", Map.of(name, value)), GcsSettings.CredentialsMode.CLIENT));
      assertTrue(e.getMessage().contains("'" + name + "'") && e.getMessage().contains("storage("), e.getMessage());
    }
    GcsSettings s = GcsSettings.parse(new StoreSettings("gs", Map.of("list_page_size", "10", "part_size", "1mb",
        "single_upload_threshold", "1mb")), GcsSettings.CredentialsMode.CLIENT);
    assertEquals(GcsSettings.CredentialsMode.CLIENT, s.credentialsMode);
    assertEquals(10, s.listPageSize);
  }

  @Test
  void credentialSettingsAreRefusedNextToGivenCredentials() {
    for (Map.Entry<String, String> setting : Map.of("credentials", "none", "credentials_file", "/x.json").entrySet()) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> GcsSettings.parse(
          new StoreSettings("gs", Map.of(setting.getKey(), setting.getValue())), GcsSettings.CredentialsMode.GIVEN));
      assertTrue(e.getMessage().contains("'" + setting.getKey() + "'") && e.getMessage().contains("credentials("),
          e.getMessage());
    }
    GcsSettings s = GcsSettings.parse(new StoreSettings("gs", Map.of("endpoint", "http://127.0.0.1:4443",
        "project_id", "p")), GcsSettings.CredentialsMode.GIVEN);
    assertEquals(GcsSettings.CredentialsMode.GIVEN, s.credentialsMode);
    assertEquals("http://127.0.0.1:4443", s.endpoint);
  }

  @Test
  void unknownSettingIsRejectedByNameInTheUri() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> BlobStores.open(URI.create("gs://bucket/prefix?credentials=none&list_page_sise=10")));
    assertTrue(e.getMessage().contains("list_page_sise") && e.getMessage().contains("list_page_size"), e.getMessage());
  }

  @Test
  void unknownSettingIsRejectedByNameInTheBuilder() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> GcsBlobStore.builder().bucket("bucket").noCredentials().setting("endpiont", "http://x").build());
    assertTrue(e.getMessage().contains("endpiont"), e.getMessage());
  }

  @Test
  void badValuesNameTheSetting() {
    for (Map.Entry<String, String> bad : Map.of(
        "connect_timeout", "soon", "part_size", "big", "list_page_size", "5000",
        "endpoint", "ftp://host", "credentials", "secret-token-123").entrySet()) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> parse(Map.of(bad.getKey(), bad.getValue())));
      assertTrue(e.getMessage().contains(bad.getKey()), e.getMessage());
      assertFalse(e.getMessage().contains("secret-token-123"), e.getMessage());
    }
  }

  @Test
  void credentialsFileAndNoneContradict() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> parse(Map.of("credentials", "none", "credentials_file", "/x.json")));
    assertTrue(e.getMessage().contains("credentials_file") && e.getMessage().contains("credentials"), e.getMessage());
  }

  @Test
  void anEndpointWithUserInfoIsRejectedWithoutEchoingIt() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> parse(Map.of("endpoint", "https://user:hunter2@storage.example.com")));
    assertTrue(e.getMessage().contains("endpoint"), e.getMessage());
    assertFalse(e.getMessage().contains("hunter2"), e.getMessage());
  }

  @Test
  void uriNamesBucketAndPrefix() throws Exception {
    try (BlobStore opened = BlobStores.open(URI.create("gs://my_bucket.v2/a/b/c/?credentials=none"))) {
      GcsBlobStore s = assertInstanceOf(GcsBlobStore.class, FilterBlobStore.unwrap(opened));
      assertEquals("my_bucket.v2", s.bucket());
      assertEquals("a/b/c/", s.prefix());
      assertEquals("gs://my_bucket.v2/a/b/c (endpoint https://storage.googleapis.com)", s.describe());
      assertEquals(s.describe(), opened.describe());
    }
  }

  @Test
  void retrySettingsInTheUriGoToTheStorePolicy() throws Exception {
    try (BlobStore opened = BlobStores.open(URI.create(
        "gs://bucket/p?credentials=none&max_retries=5&retry_delay=50ms&request_timeout=2s"))) {
      StorePolicy policy = StorePolicy.of(opened);
      assertEquals(5, policy.maxRetries());
      assertEquals(Duration.ofMillis(50), policy.retryDelay());
      assertEquals(Duration.ofSeconds(2), policy.requestTimeout());
      assertInstanceOf(GcsBlobStore.class, FilterBlobStore.unwrap(opened));
    }
    try (BlobStore opened = BlobStores.open(URI.create("gs://bucket/p?credentials=none"))) {
      assertEquals(StorePolicy.DEFAULT, StorePolicy.of(opened), "a URI without policy settings gets the defaults");
    }
  }

  @Test
  void theBackendHasNoRetrySettingOfItsOwn() {
    IllegalArgumentException parsed =
        assertThrows(IllegalArgumentException.class, () -> parse(Map.of("credentials", "none", "max_retries", "2")));
    assertTrue(parsed.getMessage().contains("max_retries"), parsed.getMessage());
    IllegalArgumentException built = assertThrows(IllegalArgumentException.class,
        () -> GcsBlobStore.builder().bucket("bucket").noCredentials().setting("max_retries", "2").build());
    assertTrue(built.getMessage().contains("max_retries") && built.getMessage().contains("store policy")
        && built.getMessage().contains("StorePolicy"), built.getMessage());
  }

  @Test
  void malformedUrisAreRejected() {
    for (String uri : new String[] {
        "gs:///prefix?credentials=none", "gs://user:pw@bucket/p?credentials=none", "gs://Bad-Bucket/p?credentials=none",
        "gs://bucket/a/../b?credentials=none", "gs://b/p?credentials=none"}) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> BlobStores.open(URI.create(uri)), uri);
      assertFalse(e.getMessage().contains("pw@"), e.getMessage());
    }
  }
}
