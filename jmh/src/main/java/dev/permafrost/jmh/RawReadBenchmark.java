/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.jmh;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.sample.Dataset;
import dev.permafrost.jmh.store.BlobIndexes;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.store.BlobDirectory;
import dev.permafrost.store.SharedRegionCache;
import java.io.IOException;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.MMapDirectory;
import org.apache.lucene.store.RandomAccessInput;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Raw reads of the largest file of the first index (stored fields, usually): {@code BlobIndexInput} on a warm
 * cache against {@code MMapDirectory}'s input. Sequential {@code readBytes} of the whole file in 16 KiB chunks
 * (reported per MiB), and {@code readLong} / 256-byte {@code readBytes} at random positions (reported per read).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED", "-Xmx1g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class RawReadBenchmark {
  private static final int RANDOM_READS = 1024;

  @Param({"smoke"})
  public String scale;

  @Param({"blob", "mmap"})
  public String directory;

  private BlobStore store;
  private SharedRegionCache cache;
  private Path cacheDir;
  private Directory dir;
  private IndexInput input;
  private RandomAccessInput randomAccess;
  private long[] positions;
  private final byte[] chunk = new byte[16 << 10];
  private double mebibytes;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    Dataset dataset = BenchmarkData.dataset(scale);
    String index = dataset.indexNames().getFirst();
    if (directory.equals("blob")) {
      store = dataset.openStore();
      cacheDir = BenchmarkData.scratch("raw-cache");
      cache = BlobIndexes.cache(cacheDir, 2 * dataset.indexBytes() + (64 << 20), BlobIndexes.regionSizeFor(dataset));
      dir = BlobDirectory.open(SnapshotRepository.open(store), index, cache);
    } else {
      dir = new MMapDirectory(dataset.indexPath(index));
    }
    String largest = null;
    for (String file : dir.listAll()) {
      if (largest == null || dir.fileLength(file) > dir.fileLength(largest)) {
        largest = file;
      }
    }
    input = dir.openInput(largest, IOContext.DEFAULT);
    randomAccess = input.randomAccessSlice(0, input.length());
    mebibytes = input.length() / 1048576.0;
    SplittableRandom random = new SplittableRandom(11);
    positions = new long[RANDOM_READS];
    for (int i = 0; i < positions.length; i++) {
      positions[i] = random.nextLong(input.length() - 256);
    }
    System.out.println("# reading " + largest + " (" + input.length() + " bytes) through " + input);
    sequential(); // warm the cache (and page cache)
  }

  /** Reads the whole file in 16 KiB chunks; returns a checksum-ish value so nothing is optimized away. */
  @Benchmark
  public long sequential() throws IOException {
    IndexInput in = input.clone();
    in.seek(0);
    long length = in.length();
    long sum = 0;
    for (long pos = 0; pos < length; pos += chunk.length) {
      int n = (int) Math.min(chunk.length, length - pos);
      in.readBytes(chunk, 0, n);
      sum += chunk[n - 1];
    }
    return sum;
  }

  @Benchmark
  @OperationsPerInvocation(RANDOM_READS)
  public long randomReadLong() throws IOException {
    long sum = 0;
    for (long p : positions) {
      sum += randomAccess.readLong(p);
    }
    return sum;
  }

  @Benchmark
  @OperationsPerInvocation(RANDOM_READS)
  public long randomReadBytes() throws IOException {
    IndexInput in = input.clone();
    long sum = 0;
    for (long p : positions) {
      in.seek(p);
      in.readBytes(chunk, 0, 256);
      sum += chunk[255];
    }
    return sum;
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    System.out.printf("# file of %.1f MiB: divide sequential's time per op by that for time per MiB%n", mebibytes);
    input.close();
    dir.close();
    if (cache != null) {
      cache.close();
      store.close();
    }
    BenchmarkData.delete(cacheDir);
  }
}
