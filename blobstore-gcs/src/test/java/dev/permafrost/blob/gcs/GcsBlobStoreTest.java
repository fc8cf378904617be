/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.gcs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.cloud.NoCredentials;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import dev.permafrost.blob.BlobMetadata;
import dev.permafrost.blob.BlobNotFoundException;
import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStoreException;
import dev.permafrost.blob.BlobStores;
import dev.permafrost.blob.FilterBlobStore;
import dev.permafrost.blob.StorePolicy;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** GCS-specific behaviour on fake-gcs-server: URIs, prefixes, the resumable path, batch delete, folders. */
class GcsBlobStoreTest {
  private final Random random = new Random();
  private String bucket;
  private GcsBlobStore store;
  private Storage raw;

  @BeforeEach
  void setUp() throws IOException {
    bucket = GcsTestStores.newBucket();
    store = GcsTestStores.builder(bucket).prefix("repo/root").build();
    raw = StorageOptions.http()
        .setHost(GcsTestStores.endpoint())
        .setProjectId(GcsTestStores.projectId())
        .setCredentials(NoCredentials.getInstance())
        .build()
        .getService();
  }

  @AfterEach
  void tearDown() throws Exception {
    store.close();
    raw.close();
  }

  private byte[] bytes(int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }

  @Test
  void openByUriReadsBucketPrefixAndSettings() throws IOException {
    URI uri = URI.create("gs://" + bucket + "/by/uri/?endpoint=" + GcsTestStores.endpoint()
        + "&credentials=none&project_id=" + GcsTestStores.projectId()
        + "&list_page_size=2&single_upload_threshold=1mb&part_size=256kb&connect_timeout=5s&read_timeout=PT5S"
        + "&max_retries=1");
    try (BlobStore opened = BlobStores.open(uri)) {
      GcsBlobStore gcs = assertInstanceOf(GcsBlobStore.class, FilterBlobStore.unwrap(opened));
      assertEquals(1, StorePolicy.of(opened).maxRetries(), "max_retries is the store policy's");
      assertEquals(bucket, gcs.bucket());
      assertEquals("by/uri/", gcs.prefix());
      assertEquals("gs://" + bucket + "/by/uri (endpoint " + GcsTestStores.endpoint() + ")", gcs.describe());
      for (int i = 0; i < 5; i++) {
        opened.write("x" + i, new ByteArrayInputStream(new byte[] {(byte) i}), 1);
      }
      assertEquals(5, opened.list("").size()); // three pages of two
    }
    assertTrue(raw.get(BlobId.of(bucket, "by/uri/x3")) != null, "blob is stored below the URI's prefix");
  }

  @Test
  void aUriWithoutPrefixUsesTheWholeBucket() throws IOException {
    URI uri = URI.create("gs://" + bucket + "?endpoint=" + GcsTestStores.endpoint() + "&credentials=none");
    try (BlobStore opened = BlobStores.open(uri)) {
      assertEquals("", ((GcsBlobStore) FilterBlobStore.unwrap(opened)).prefix());
      assertEquals("gs://" + bucket + " (endpoint " + GcsTestStores.endpoint() + ")", opened.describe());
      store.write("inside", new ByteArrayInputStream(new byte[2]), 2);
      assertEquals(List.of(new BlobMetadata("repo/root/inside", 2)), opened.list(""));
    }
  }

  @Test
  void blobsOutsideThePrefixAreInvisible() throws IOException {
    raw.create(BlobInfo.newBuilder(bucket, "repo/rootless").build(), new byte[3]);
    raw.create(BlobInfo.newBuilder(bucket, "elsewhere/x").build(), new byte[3]);
    store.write("mine", new ByteArrayInputStream(new byte[1]), 1);
    assertEquals(List.of(new BlobMetadata("mine", 1)), store.list(""));
    assertFalse(store.exists("less"), "repo/rootless is not below the prefix repo/root/");
  }

  @Test
  void folderPlaceholdersAreNotListed() throws IOException {
    raw.create(BlobInfo.newBuilder(bucket, "repo/root/dir/").build(), new byte[0]);
    store.write("dir/file", new ByteArrayInputStream(new byte[4]), 4);
    assertEquals(List.of(new BlobMetadata("dir/file", 4)), store.list(""));
  }

  @Test
  void aLargeWriteGoesThroughTheResumablePath() throws IOException {
    // Threshold 1 MiB and parts of 256 KiB (GcsTestStores): 3 MiB + 1 is one resumable upload of 13 parts.
    byte[] data = bytes((3 << 20) + 1);
    store.write("big", new ByteArrayInputStream(data), data.length);
    assertEquals(data.length, store.length("big"));
    try (InputStream in = store.read("big")) {
      assertArrayEquals(data, in.readAllBytes());
    }
    try (InputStream in = store.read("big", (2 << 20) + 5, (1 << 20) - 4)) {
      assertArrayEquals(Arrays.copyOfRange(data, (2 << 20) + 5, data.length), in.readAllBytes());
    }
  }

  @Test
  void aResumableUploadThatFailsAfterSeveralChunksLeavesTheOldBlob() throws IOException {
    byte[] old = bytes(2000);
    store.write("resumable/blob", new ByteArrayInputStream(old), old.length);
    // Fails after 1.5 MiB of a 3 MiB blob: several 256 KiB chunks have reached the server by then.
    InputStream failing = new InputStream() {
      long served;

      @Override
      public int read() throws IOException {
        if (served++ >= (3 << 19)) {
          throw new IOException("source broke");
        }
        return 42;
      }
    };
    BlobStoreException e =
        assertThrows(BlobStoreException.class, () -> store.write("resumable/blob", failing, 3 << 20));
    assertTrue(e.getMessage().contains("source broke") && e.getMessage().contains("resumable/blob"), e.getMessage());
    try (InputStream in = store.read("resumable/blob")) {
      assertArrayEquals(old, in.readAllBytes(), "a failed overwrite must leave the old blob");
    }
    assertThrows(IOException.class, () -> store.write("resumable/new", failing, 3 << 20));
    assertFalse(store.exists("resumable/new"));
    assertEquals(List.of(new BlobMetadata("resumable/blob", 2000)), store.list("resumable/"));
  }

  @Test
  void aShortSourceOnTheResumablePathLeavesNoBlob() {
    byte[] data = bytes(1500 << 10);
    BlobStoreException e = assertThrows(
        BlobStoreException.class, () -> store.write("short-resumable", new ByteArrayInputStream(data), 2 << 20));
    assertTrue(e.getMessage().contains("ended after " + data.length), e.getMessage());
    assertThrows(BlobNotFoundException.class, () -> store.length("short-resumable"));
  }

  @Test
  void deleteAllDeletesInBatchesAndIgnoresMissingBlobs() throws IOException {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 230; i++) {
      String name = String.format("batch/%04d", i);
      store.write(name, new ByteArrayInputStream(new byte[] {1}), 1);
      names.add(name);
    }
    names.add("batch/never-written");
    store.write("keep", new ByteArrayInputStream(new byte[] {1}), 1);
    store.deleteAll(names);
    assertEquals(List.of(), store.list("batch/"));
    assertTrue(store.exists("keep"));
    store.deleteAll(List.of());
    store.deleteAll(List.of("keep"));
    assertFalse(store.exists("keep"));
  }

  @Test
  void readsOfMissingBlobsFailWhenOpenedNotWhenRead() {
    BlobNotFoundException whole = assertThrows(BlobNotFoundException.class, () -> store.read("nope"));
    assertEquals("nope", whole.blobName());
    BlobNotFoundException ranged = assertThrows(BlobNotFoundException.class, () -> store.read("nope", 10, 5));
    assertTrue(ranged.getMessage().contains("nope") && ranged.getMessage().contains(bucket), ranged.getMessage());
    assertThrows(BlobNotFoundException.class, () -> store.read("nope", 0, 0));
  }

  @Test
  void aRangePastTheEndNamesTheRangeAndTheLength() throws IOException {
    store.write("r", new ByteArrayInputStream(bytes(1000)), 1000);
    for (long[] range : new long[][] {{990, 20}, {1000, 1}, {5000, 10}, {1001, 0}}) {
      BlobStoreException e = assertThrows(BlobStoreException.class, () -> {
        try (InputStream in = store.read("r", range[0], range[1])) {
          in.readAllBytes();
        }
      });
      assertFalse(e instanceof BlobNotFoundException, e.getMessage());
      String expectedRange = BlobStoreException.range(range[0], range[1]);
      assertTrue(e.getMessage().contains(expectedRange) && e.getMessage().contains("length 1000")
          && e.getMessage().contains("gs://" + bucket), e.getMessage());
    }
  }

  @Test
  void singleByteReadsAndPartialReadsWork() throws IOException {
    byte[] data = bytes(20_000);
    store.write("bytes", new ByteArrayInputStream(data), data.length);
    try (InputStream in = store.read("bytes", 9_000, 10_000)) {
      assertEquals(data[9_000] & 0xFF, in.read());
      byte[] rest = new byte[9_999];
      assertEquals(9_999, in.readNBytes(rest, 0, rest.length));
      assertArrayEquals(Arrays.copyOfRange(data, 9_001, 19_000), rest);
      assertEquals(-1, in.read());
    }
  }

  @Test
  void closedStoreRefusesWork() throws IOException {
    store.close();
    assertThrows(IllegalStateException.class, () -> store.length("x"));
    store.close(); // twice is fine
  }

  @Test
  void toStringIsTheDescription() {
    assertEquals("GcsBlobStore(" + store.describe() + ")", store.toString());
    assertTrue(store.describe().startsWith("gs://" + bucket + "/repo/root (endpoint "), store.describe());
  }

  @Test
  void builderAndUriShareTheSettingNames() throws IOException {
    try (GcsBlobStore viaSetting = GcsBlobStore.builder().bucket(bucket)
        .setting(GcsSettings.ENDPOINT, GcsTestStores.endpoint())
        .setting(GcsSettings.CREDENTIALS, "none")
        .settings(Map.of(GcsSettings.LIST_PAGE_SIZE, "3", GcsSettings.READ_TIMEOUT, "30s"))
        .build()) {
      viaSetting.write("a", new ByteArrayInputStream(new byte[1]), 1);
      assertEquals(1, viaSetting.list("").size());
    }
  }
}
