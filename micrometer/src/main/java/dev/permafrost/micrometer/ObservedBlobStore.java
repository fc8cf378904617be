/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.micrometer;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStoreException;
import dev.permafrost.blob.FilterBlobInputStream;
import dev.permafrost.blob.FilterBlobStore;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;

/**
 * A blob store whose ranged and whole-blob reads are Micrometer {@link Observation}s named {@value #NAME}, from the
 * request until its response is read or closed: tracing shows each store request as a span, a meter handler times
 * them. Low-cardinality key values: the store and the outcome; high-cardinality: the blob and the range. Put it under
 * the store policy (around the backend: {@code policy.apply(new ObservedBlobStore(backend, registry))}) to see every
 * attempt, or over it to see each read once, retries included.
 */
public final class ObservedBlobStore extends FilterBlobStore {
  /** The observations' name. */
  public static final String NAME = "permafrost.store.request";
  private final ObservationRegistry registry;

  public ObservedBlobStore(BlobStore in, ObservationRegistry registry) {
    super(in);
    this.registry = Objects.requireNonNull(registry, "registry");
  }

  @Override
  public InputStream read(String blobName, long offset, long length) throws IOException {
    return observed(blobName, BlobStoreException.range(offset, length), () -> super.read(blobName, offset, length));
  }

  @Override
  public InputStream read(String blobName) throws IOException {
    return observed(blobName, "whole", () -> super.read(blobName));
  }

  private interface Open {
    InputStream open() throws IOException;
  }

  private InputStream observed(String blobName, String range, Open open) throws IOException {
    Observation observation = Observation.createNotStarted(NAME, registry)
        .contextualName("permafrost store read")
        .lowCardinalityKeyValue("store", describe())
        .highCardinalityKeyValue("blob", blobName)
        .highCardinalityKeyValue("range", range)
        .start();
    InputStream in;
    try {
      in = open.open();
    } catch (IOException | RuntimeException e) {
      observation.lowCardinalityKeyValue("outcome", "error").error(e);
      observation.stop();
      throw e;
    }
    return new FilterBlobInputStream(in) {
      private boolean stopped;

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        int n;
        try {
          n = in.read(b, off, len);
        } catch (IOException | RuntimeException e) {
          stop(e);
          throw e;
        }
        if (n < 0) {
          stop(null);
        }
        return n;
      }

      @Override
      public void close() throws IOException {
        stop(null);
        super.close();
      }

      private void stop(Throwable error) {
        if (!stopped) {
          stopped = true;
          observation.lowCardinalityKeyValue("outcome", error == null ? "success" : "error");
          if (error != null) {
            observation.error(error);
          }
          observation.stop();
        }
      }
    };
  }
}
