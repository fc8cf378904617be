/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The contract every {@link BlobStore} passes. A backend's test extends this class and opens a fresh, empty
 * store (a new prefix or bucket) in {@link #createStore()}; the filesystem store runs it too.
 */
public abstract class BlobStoreContractTest {
  protected BlobStore store;
  protected final Random random = new Random(Long.getLong("tests.seed", System.nanoTime()));

  /** A new, empty store for one test. */
  protected abstract BlobStore createStore() throws Exception;

  /** A size that takes the backend's multipart / resumable / block upload path. */
  protected long largeBlobSize() {
    return 12L << 20;
  }

  /** How many blobs the listing test writes: more than the backend's list page size. */
  protected int manyBlobCount() {
    return 120;
  }

  @BeforeEach
  void openStore() throws Exception {
    store = createStore();
  }

  @AfterEach
  void closeStore() throws Exception {
    if (store != null) {
      store.close();
    }
  }

  protected byte[] randomBytes(int length) {
    byte[] data = new byte[length];
    random.nextBytes(data);
    return data;
  }

  protected void put(String name, byte[] data) throws IOException {
    store.write(name, new ByteArrayInputStream(data), data.length);
  }

  protected byte[] get(String name) throws IOException {
    try (InputStream in = store.read(name)) {
      return in.readAllBytes();
    }
  }

  protected byte[] get(String name, long offset, long length) throws IOException {
    try (InputStream in = store.read(name, offset, length)) {
      return in.readAllBytes();
    }
  }

  @Test
  void writeThenReadWhole() throws IOException {
    for (int size : new int[] {1, 17, 4096, 100_000}) {
      byte[] data = randomBytes(size);
      put("whole/blob-" + size, data);
      assertArrayEquals(data, get("whole/blob-" + size));
      assertEquals(size, store.length("whole/blob-" + size));
      assertTrue(store.exists("whole/blob-" + size));
    }
  }

  @Test
  void rangedReadsAtStartMiddleAndEnd() throws IOException {
    byte[] data = randomBytes(50_000);
    put("ranges/blob", data);
    assertArrayEquals(Arrays.copyOfRange(data, 0, 100), get("ranges/blob", 0, 100));
    assertArrayEquals(Arrays.copyOfRange(data, 20_000, 31_234), get("ranges/blob", 20_000, 11_234));
    assertArrayEquals(Arrays.copyOfRange(data, 49_990, 50_000), get("ranges/blob", 49_990, 10));
    assertArrayEquals(data, get("ranges/blob", 0, data.length));
    assertArrayEquals(new byte[0], get("ranges/blob", 50_000, 0));
    assertArrayEquals(new byte[0], get("ranges/blob", 123, 0));
    for (int i = 0; i < 20; i++) {
      int offset = random.nextInt(data.length);
      int length = random.nextInt(data.length - offset + 1);
      assertArrayEquals(Arrays.copyOfRange(data, offset, offset + length), get("ranges/blob", offset, length));
    }
  }

  @Test
  void rangePastTheEndFailsNamingTheBlob() throws IOException {
    put("past/blob", randomBytes(1000));
    for (long[] range : new long[][] {{990, 20}, {1000, 1}, {5000, 10}}) {
      BlobStoreException e = assertThrows(BlobStoreException.class, () -> get("past/blob", range[0], range[1]));
      assertTrue(e.getMessage().contains("past/blob"), e.getMessage());
    }
    assertThrows(IllegalArgumentException.class, () -> store.read("past/blob", -1, 10));
    assertThrows(IllegalArgumentException.class, () -> store.read("past/blob", 0, -1));
  }

  @Test
  void emptyBlob() throws IOException {
    put("empty/blob", new byte[0]);
    assertEquals(0, store.length("empty/blob"));
    assertArrayEquals(new byte[0], get("empty/blob"));
    assertArrayEquals(new byte[0], get("empty/blob", 0, 0));
    assertEquals(List.of(new BlobMetadata("empty/blob", 0)), store.list("empty/"));
  }

  @Test
  void largeBlob() throws IOException {
    int size = Math.toIntExact(largeBlobSize()) + 12345;
    byte[] data = randomBytes(size);
    put("large/blob", data);
    assertEquals(size, store.length("large/blob"));
    assertArrayEquals(data, get("large/blob"));
    int offset = size - (5 << 20) - 77;
    assertArrayEquals(Arrays.copyOfRange(data, offset, offset + (5 << 20)), get("large/blob", offset, 5 << 20));
  }

  @Test
  void listingWithManyResultsFollowsEveryPage() throws IOException {
    int count = manyBlobCount();
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String name = String.format("many/item-%05d", i);
      put(name, new byte[] {(byte) i});
      expected.add(name);
    }
    put("many-but-not-below/x", new byte[3]);
    put("other/y", new byte[2]);
    List<BlobMetadata> listed = store.list("many/");
    assertEquals(expected, listed.stream().map(BlobMetadata::name).toList());
    assertTrue(listed.stream().allMatch(b -> b.length() == 1));
    assertEquals(count + 1, store.list("many").size());
    assertEquals(List.of(new BlobMetadata("many/item-00001", 1)), store.list("many/item-00001"));
    assertEquals(List.of(), store.list("nothing-here/"));
    List<String> all = store.list("").stream().map(BlobMetadata::name).toList();
    assertTrue(all.containsAll(expected) && all.contains("other/y"), "listing everything misses blobs");
  }

  @Test
  void nestedNamesListUnderTheirPrefix() throws IOException {
    put("a/b/c/d", new byte[4]);
    put("a/b/e", new byte[5]);
    put("a/bz", new byte[6]);
    assertEquals(
        List.of(new BlobMetadata("a/b/c/d", 4), new BlobMetadata("a/b/e", 5)), store.list("a/b/"));
    assertEquals(3, store.list("a/b").size());
  }

  @Test
  void concurrentReads() throws Exception {
    byte[] data = randomBytes(300_000);
    put("concurrent/blob", data);
    ExecutorService executor = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        long seed = random.nextLong();
        futures.add(executor.submit(() -> {
          Random r = new Random(seed);
          for (int i = 0; i < 10; i++) {
            int offset = r.nextInt(data.length);
            int length = r.nextInt(Math.min(40_000, data.length - offset) + 1);
            assertArrayEquals(Arrays.copyOfRange(data, offset, offset + length), get("concurrent/blob", offset, length));
          }
          return null;
        }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
    } finally {
      executor.shutdownNow();
    }
  }

  @Test
  void overwriteReplacesTheBlob() throws IOException {
    put("over/blob", randomBytes(500));
    byte[] second = randomBytes(300);
    put("over/blob", second);
    assertArrayEquals(second, get("over/blob"));
    assertEquals(300, store.length("over/blob"));
  }

  @Test
  void deleteRemovesOnlyThatBlob() throws IOException {
    put("del/a", randomBytes(10));
    put("del/b", randomBytes(10));
    store.delete("del/a");
    assertFalse(store.exists("del/a"));
    assertThrows(BlobNotFoundException.class, () -> get("del/a"));
    assertTrue(store.exists("del/b"));
    store.delete("del/a"); // again: not an error
    store.delete("del/never-existed");
    store.deleteAll(List.of("del/b", "del/c"));
    assertEquals(List.of(), store.list("del/"));
  }

  @Test
  void missingBlobIsNotFoundNamingTheBlob() {
    for (Executable e :
        List.<Executable>of(
            () -> get("missing/blob"), () -> get("missing/blob", 0, 1), () -> store.length("missing/blob"))) {
      BlobNotFoundException nf = assertThrows(BlobNotFoundException.class, e);
      assertEquals("missing/blob", nf.blobName());
      assertTrue(nf.getMessage().contains("missing/blob"), nf.getMessage());
    }
  }

  @Test
  void invalidNamesAreRejectedBeforeTouchingTheStore() throws IOException {
    for (String bad : new String[] {"", "/abs", "a//b", "a/../b", "..", "../x", "a/./b", "a/", "a\\b", "a\u0000b"}) {
      assertThrows(IllegalArgumentException.class, () -> put(bad, new byte[1]), bad);
      assertThrows(IllegalArgumentException.class, () -> get(bad), bad);
      assertThrows(IllegalArgumentException.class, () -> get(bad, 0, 1), bad);
      assertThrows(IllegalArgumentException.class, () -> store.length(bad), bad);
      assertThrows(IllegalArgumentException.class, () -> store.delete(bad), bad);
    }
    assertThrows(IllegalArgumentException.class, () -> store.list("../"));
    assertEquals(List.of(), store.list(""));
  }

  @Test
  void aFailingSourceStreamLeavesNoBlob() throws IOException {
    byte[] old = randomBytes(100);
    put("fail/blob", old);
    InputStream failing = new InputStream() {
      int served;

      @Override
      public int read() throws IOException {
        if (served++ > 5000) {
          throw new IOException("source broke");
        }
        return 7;
      }
    };
    assertThrows(IOException.class, () -> store.write("fail/blob", failing, 100_000));
    assertArrayEquals(old, get("fail/blob"), "a failed overwrite must leave the old blob");
    assertThrows(IOException.class, () -> store.write("fail/new", failing, 100_000));
    assertFalse(store.exists("fail/new"));
  }

  @Test
  void aShortSourceStreamLeavesNoBlob() {
    assertThrows(IOException.class, () -> store.write("short/blob", new ByteArrayInputStream(new byte[10]), 20));
    assertThrows(BlobNotFoundException.class, () -> store.length("short/blob"));
  }

  @Test
  void verifierPasses() throws IOException {
    BlobStoreVerifier.verify(store, "verify/");
    assertEquals(List.of(), store.list("verify/"));
  }

  @Test
  void describeNamesTheStore() {
    assertFalse(store.describe().isBlank());
    assertTrue(store.toString().length() > 0);
  }
}
