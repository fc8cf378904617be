/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store that keeps failing spends its retry budget and then fails each call at its first failure, saying since
 * when it has been failing; successes refill the budget and end the failing spell.
 */
class RetryBudgetTest {
  @TempDir Path tmp;

  private static byte[] read(BlobStore store, String name) throws IOException {
    try (InputStream in = store.read(name, 0, 1000)) {
      return in.readAllBytes();
    }
  }

  @Test
  void aFailingStoreFailsFastOnceItsBudgetIsSpentAndRecoversWhenRequestsSucceed() throws IOException {
    FileSystemBlobStore fs = FileSystemBlobStore.open(tmp, false);
    byte[] data = new byte[1000];
    fs.write("blob", new ByteArrayInputStream(data), data.length);
    FaultInjectingBlobStore faulty = new FaultInjectingBlobStore(fs, 1).failRate(1);
    BlobStore store = StorePolicy.builder().maxRetries(3).retryDelay(Duration.ofMillis(1)).retryMaxDelay(Duration.ofMillis(2))
        .retryBudget(5).build().apply(faulty);

    // 5 tokens: the first call retries 3 times, the second twice and is then refused
    assertThrows(IOException.class, () -> read(store, "blob"));
    assertEquals(4, faulty.reads.get());
    assertFalse(StorePolicy.health(store).failing());
    IOException refused = assertThrows(IOException.class, () -> read(store, "blob"));
    assertEquals(7, faulty.reads.get());
    StoreHealth health = StorePolicy.health(store);
    assertTrue(health.failing(), "spent: " + health);
    assertNotNull(health.failingSince());
    assertEquals(5, health.retries());
    assertEquals(1, health.retriesRefused());
    assertTrue(refused.getMessage().contains("failing since " + health.failingSince()), refused.getMessage());
    assertTrue(refused.getMessage().contains(StorePolicy.RETRY_BUDGET), refused.getMessage());

    // from now on every call makes one attempt
    for (int i = 0; i < 10; i++) {
      long before = faulty.reads.get();
      IOException e = assertThrows(IOException.class, () -> read(store, "blob"));
      assertEquals(before + 1, faulty.reads.get(), "one attempt per call while failing: " + e);
    }
    assertEquals(11, StorePolicy.health(store).retriesRefused());

    // the store answers again: each success gives a token back; half the budget ends the failing spell
    faulty.heal();
    read(store, "blob");
    read(store, "blob");
    assertTrue(StorePolicy.health(store).failing(), "two tokens of five are not half the budget");
    read(store, "blob");
    health = StorePolicy.health(store);
    assertFalse(health.failing(), "refilled: " + health);
    assertNull(health.failingSince());
    assertEquals(3.0, health.retryTokens());
  }

  @Test
  void aResponseCutShortIsNotASuccess() throws IOException {
    FileSystemBlobStore fs = FileSystemBlobStore.open(tmp, false);
    byte[] data = new byte[100_000];
    fs.write("blob", new ByteArrayInputStream(data), data.length);
    FaultInjectingBlobStore faulty = new FaultInjectingBlobStore(fs, 7).cutRate(1);
    BlobStore store = StorePolicy.builder().maxRetries(2).retryDelay(Duration.ofMillis(1)).retryMaxDelay(Duration.ofMillis(2))
        .retryBudget(4).build().apply(faulty);
    // every response opens fine and breaks part way: opening must not refill what the breaks spend
    for (int i = 0; i < 3; i++) {
      assertThrows(IOException.class, () -> {
        try (InputStream in = store.read("blob", 0, data.length)) {
          in.readAllBytes();
        }
      });
    }
    assertTrue(StorePolicy.health(store).failing(), "cut responses spend the budget: " + StorePolicy.health(store));
  }

  @Test
  void theBudgetIsASettingAndZeroTurnsItOff() throws IOException {
    assertEquals(100, StorePolicy.DEFAULT.retryBudget());
    assertEquals(7, StorePolicy.fromSettings(StoreSettings.fromQuery(URI.create("file:///x?" + StorePolicy.RETRY_BUDGET + "=7"))).retryBudget());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> StorePolicy.builder().retryBudget(-1));
    assertTrue(e.getMessage().contains(StorePolicy.RETRY_BUDGET), e.getMessage());
    BlobStore store = StorePolicy.builder().retryBudget(0).build().apply(FileSystemBlobStore.open(tmp, false));
    assertEquals(0, StorePolicy.health(store).retryBudget());
    assertFalse(StorePolicy.health(store).failing());
  }
}
