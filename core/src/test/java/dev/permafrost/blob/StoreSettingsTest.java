/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import org.junit.jupiter.api.Test;

/** Settings: parsing, unknown names, and what a builder refuses. */
class StoreSettingsTest {
  private static final class TestBuilder extends BlobStoreBuilder<TestBuilder> {
    TestBuilder() {
      super("test");
    }
  }

  @Test
  void unknownAndMalformedSettingsAreNamedAndSecretsNotEchoed() {
    StoreSettings s = StoreSettings.fromQuery(URI.create("s3://b/p?secret_key=hunter2&list_page_sise=3"));
    s.get("secret_key", null);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, s::rejectUnknown);
    assertTrue(e.getMessage().contains("list_page_sise"), e.getMessage());
    StoreSettings bad = StoreSettings.fromQuery(URI.create("s3://b/p?secret_key=x&part_size=huge"));
    e = assertThrows(IllegalArgumentException.class, () -> bad.getBytes("part_size", 0));
    assertTrue(e.getMessage().contains("part_size") && e.getMessage().contains("huge"), e.getMessage());
  }

  @Test
  void aBuilderRefusesStorePolicySettings() {
    TestBuilder builder = new TestBuilder();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> builder.setting("max_retries", "3"));
    assertTrue(e.getMessage().contains("store policy"), e.getMessage());
  }
}
