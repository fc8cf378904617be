/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileSystemBlobStoreTest extends BlobStoreContractTest {
  @TempDir Path dir;

  @Override
  protected BlobStore createStore() throws IOException {
    return FileSystemBlobStore.open(dir.resolve("repo"), false);
  }

  @Test
  void openByUriFindsTheFileBackend() throws IOException {
    try (BlobStore opened = BlobStores.open(URI.create("file://" + dir.resolve("by-uri") + "?fsync=false&max_retries=7"))) {
      assertInstanceOf(FileSystemBlobStore.class, FilterBlobStore.unwrap(opened));
      assertEquals(7, StorePolicy.of(opened).maxRetries(), "the URI's policy settings govern the store");
      opened.write("x", new ByteArrayInputStream(new byte[3]), 3);
      assertTrue(Files.exists(dir.resolve("by-uri/x")));
    }
  }

  @Test
  void unknownSchemeListsTheAvailableOnes() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> BlobStores.open(URI.create("nope://bucket/x")));
    assertTrue(e.getMessage().contains("nope") && e.getMessage().contains("file"), e.getMessage());
  }

  @Test
  void unknownSettingIsNamed() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> BlobStores.open(URI.create("file://" + dir.resolve("s") + "?fsynk=false")));
    assertTrue(e.getMessage().contains("fsynk"), e.getMessage());
  }

  @Test
  void writesInProgressAreNeverListedAndTheTempFolderIsReserved() throws IOException {
    assertThrows(IllegalArgumentException.class, () -> put(FileSystemBlobStore.TEMP_DIR + "/x", new byte[1]));
    put("visible", new byte[1]);
    assertEquals(1, store.list("").size());
    assertFalse(store.list("").stream().anyMatch(b -> b.name().startsWith(".permafrost")));
  }

  @Test
  void theRootMustBeADirectory() throws IOException {
    Path file = Files.writeString(dir.resolve("a-file"), "x");
    BlobStoreException e = assertThrows(BlobStoreException.class, () -> FileSystemBlobStore.open(file));
    assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
  }

  @Test
  void nameValidationRules() {
    assertEquals("a/b.c/d-e_f", BlobNames.validate("a/b.c/d-e_f"));
    assertEquals("..a/b..", BlobNames.validate("..a/b.."));
    assertThrows(IllegalArgumentException.class, () -> BlobNames.validate("x".repeat(BlobNames.MAX_LENGTH + 1)));
    assertThrows(IllegalArgumentException.class, () -> BlobNames.validate(null));
  }

  @Test
  void backendPrefixesAreNormalized() {
    assertEquals("", BlobNames.normalizePrefix(null, "p"));
    assertEquals("", BlobNames.normalizePrefix("//", "p"));
    assertEquals("a/b/", BlobNames.normalizePrefix("/a/b/", "p"));
    assertEquals("a/", BlobNames.normalizePrefix("a", "p"));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> BlobNames.normalizePrefix("a/../b", "s3 key prefix"));
    assertTrue(e.getMessage().contains("s3 key prefix 'a/../b'"), e.getMessage());
  }
}
