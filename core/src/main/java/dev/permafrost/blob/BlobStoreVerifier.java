/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Checks that a store can do everything a repository needs, as Elasticsearch's {@code _verify} does: write a small
 * probe blob, read it back whole, read a range of it, find it by listing, and delete it. A failure names the step.
 */
public final class BlobStoreVerifier {
  /** The steps, in the order they run. */
  public enum Step {
    WRITE,
    READ,
    RANGE_READ,
    LIST,
    DELETE
  }

  /** Thrown when a step fails; {@link #step()} says which. */
  public static final class VerificationException extends IOException {
    private static final long serialVersionUID = 1L;
    private final Step step;

    VerificationException(Step step, String message, Throwable cause) {
      super(message, cause);
      this.step = step;
    }

    public Step step() {
      return step;
    }
  }

  private BlobStoreVerifier() {}

  /**
   * Runs every step against {@code store} with a probe blob under {@code prefix} (e.g. {@code "tests-"} or
   * {@code ""}), removing the probe afterwards where it can.
   *
   * @throws VerificationException naming the step that failed and why
   */
  public static void verify(BlobStore store, String prefix) throws VerificationException {
    String name = prefix + "permafrost-verify-" + UUID.randomUUID();
    BlobNames.validate(name);
    byte[] data = new byte[4096 + ThreadLocalRandom.current().nextInt(4096)];
    ThreadLocalRandom.current().nextBytes(data);
    run(Step.WRITE, store, name, () -> store.write(name, new ByteArrayInputStream(data), data.length));
    try {
      run(Step.READ, store, name, () -> {
        byte[] back;
        try (InputStream in = store.read(name)) {
          back = in.readAllBytes();
        }
        if (!Arrays.equals(data, back)) {
          throw new IOException("read back " + back.length + " bytes that differ from the " + data.length + " written");
        }
      });
      run(Step.RANGE_READ, store, name, () -> {
        int offset = 1000;
        int length = 2000;
        byte[] back;
        try (InputStream in = store.read(name, offset, length)) {
          back = in.readAllBytes();
        }
        if (!Arrays.equals(Arrays.copyOfRange(data, offset, offset + length), back)) {
          throw new IOException("range " + BlobStoreException.range(offset, length) + " read back wrong bytes");
        }
      });
      run(Step.LIST, store, name, () -> {
        List<BlobMetadata> listed = store.list(name);
        if (listed.stream().noneMatch(b -> b.name().equals(name) && b.length() == data.length)) {
          throw new IOException("the probe blob is not listed under its own name (listed: " + listed + ")");
        }
      });
    } finally {
      run(Step.DELETE, store, name, () -> {
        store.delete(name);
        if (store.exists(name)) {
          throw new IOException("the probe blob still exists after delete");
        }
      });
    }
  }

  private interface Action {
    void run() throws IOException;
  }

  private static void run(Step step, BlobStore store, String name, Action action) throws VerificationException {
    try {
      action.run();
    } catch (IOException | RuntimeException e) {
      throw new VerificationException(
          step,
          "repository verification failed at step " + step + " for probe blob '" + name + "' in " + store.describe() + ": " + e.getMessage(),
          e);
    }
  }
}
