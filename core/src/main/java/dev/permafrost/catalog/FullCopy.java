/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.catalog;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.blob.BlobStoreException;
import dev.permafrost.blob.ByteSizes;
import dev.permafrost.snapshot.ChunkTable;
import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.snapshot.ManifestRef;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.SnapshotSource;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.util.BitUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local copy of one full-copy mount (Elasticsearch's cold tier): every file kept in a blob is copied, in the
 * background and at a bounded rate, into a directory of its own, verified chunk by chunk against the snapshot's
 * chunk table and as a whole against its Lucene checksum, written to a temporary name, synced, and renamed. A file
 * is served from the copy only once it is complete; until then, through the shared cache.
 *
 * <p>The directory records which manifest it copies; a later mount of the same snapshot (after a restart, say)
 * reuses the files whose checksums still match, and fetches again any that were damaged while it was away.
 */
final class FullCopy implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(FullCopy.class);
  private static final String MARKER = "permafrost-full-copy";
  private static final String PART = ".part";
  private static final int PIECE = 8 << 20;

  private final String mount;
  private final SnapshotSource repository;
  private final ManifestRef ref;
  private final Path dir;
  private final FullCopier copier;
  private final Set<String> local = ConcurrentHashMap.newKeySet();
  private final AtomicLong bytesLocal = new AtomicLong();
  private final long bytesToCopy;
  private final FSDirectory localDirectory;
  private volatile boolean stopped;
  /** Whether a pass has begun on the copying thread and not yet ended. */
  private volatile boolean passRunning;
  private final Object passLock = new Object();
  /** The pass waiting to run or running, to cancel on close. */
  private Future<?> pass;
  /** How long to wait before the next pass after one that failed; doubles up to 64 times the first delay. */
  private long retryDelayMillis;

  FullCopy(String mount, SnapshotSource repository, SnapshotManifest manifest, Path dir, FullCopier copier)
      throws IOException {
    this.mount = mount;
    this.repository = repository;
    this.ref = manifest.ref();
    this.dir = dir;
    this.copier = copier;
    this.retryDelayMillis = copier.firstRetryDelayMillis;
    this.bytesToCopy = manifest.files().stream().filter(f -> f.blobName() != null).mapToLong(FileEntry::length).sum();
    prepare();
    this.localDirectory = FSDirectory.open(dir);
  }

  /** Makes {@code dir} the copy of this manifest: keeps it if it already is one, else empties it. */
  private void prepare() throws IOException {
    Path marker = dir.resolve(MARKER);
    String identity = ref.snapshot() + "\n" + ref.blobName() + "\n" + ref.length() + "\n" + Long.toHexString(ref.footerChecksum())
        + "\n" + Integer.toHexString(ref.crc32c()) + "\n";
    if (Files.isDirectory(dir) && !(Files.exists(marker) && Files.readString(marker).equals(identity))) {
      deleteTree(dir); // another snapshot's copy, or none we recognize
    }
    Files.createDirectories(dir);
    Files.writeString(marker, identity, StandardCharsets.UTF_8);
  }

  /** Starts copying, in the background: first verifying what a previous run left, then fetching the rest. */
  void start(SnapshotManifest manifest) {
    schedulePass(manifest, 0);
  }

  private void schedulePass(SnapshotManifest manifest, long delayMillis) {
    synchronized (passLock) {
      if (!stopped) {
        pass = copier.submit(() -> copyPass(manifest), delayMillis);
      }
    }
  }

  /**
   * One pass over the files not yet local. A file that fails is left to the shared cache and tried again in a later
   * pass, after a delay that doubles from 10 seconds to about 10 minutes.
   */
  private void copyPass(SnapshotManifest manifest) {
    passRunning = true;
    try {
      int failed = 0;
      for (FileEntry f : manifest.files()) {
        if (stopped) {
          return;
        }
        if (f.blobName() == null || local.contains(f.name())) {
          continue; // kept in the manifest (always served from it), or copied already
        }
        try {
          if (!verifiedLocally(f)) {
            copy(f, manifest);
          }
          if (!stopped) {
            local.add(f.name());
            bytesLocal.addAndGet(f.length());
          }
        } catch (IOException | RuntimeException e) {
          if (stopped) {
            return;
          }
          failed++;
          log.warn("full copy of '{}' ({}): copying {} failed, it is served through the shared cache and copied again"
              + " in {} ms: {}", mount, ref.snapshot(), f.name(), retryDelayMillis, e.toString());
        }
      }
      if (failed == 0) {
        log.info("full copy of '{}' ({}) is complete: {} in {}", mount, ref.snapshot(),
            ByteSizes.format(bytesLocal.get()), dir);
      } else {
        long delay = retryDelayMillis;
        retryDelayMillis = Math.min(64 * copier.firstRetryDelayMillis, 2 * retryDelayMillis);
        schedulePass(manifest, delay);
      }
    } finally {
      passRunning = false;
      synchronized (passLock) {
        passLock.notifyAll();
      }
    }
  }

  /** Whether the file is already here, whole, and matches its Lucene checksum (a damaged one is deleted). */
  private boolean verifiedLocally(FileEntry f) throws IOException {
    Path file = dir.resolve(f.name());
    if (!Files.exists(file)) {
      return false;
    }
    String problem = Files.size(file) != f.length() ? "it is " + Files.size(file) + " bytes, not " + f.length()
        : checksumProblem(file, f);
    if (problem == null) {
      return true;
    }
    log.warn("full copy of '{}': the local copy of {} is damaged ({}); fetching it again", mount, f.name(), problem);
    Files.delete(file);
    return false;
  }

  /** What is wrong with a whole local file's Lucene checksum, or null. */
  private static String checksumProblem(Path file, FileEntry f) throws IOException {
    CRC32 crc = new CRC32();
    byte[] last = new byte[Long.BYTES];
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      ByteBuffer buffer = ByteBuffer.allocate(1 << 20);
      long position = 0;
      long checksummed = f.length() - Long.BYTES;
      while (position < f.length()) {
        buffer.clear();
        int n = ch.read(buffer, position);
        if (n < 0) {
          return "it ends at " + position;
        }
        byte[] bytes = buffer.array();
        int inSum = (int) Math.max(0, Math.min(n, checksummed - position));
        crc.update(bytes, 0, inSum);
        for (int i = 0; i < n; i++) {
          long p = position + i;
          if (p >= checksummed) {
            last[(int) (p - checksummed)] = bytes[i];
          }
        }
        position += n;
      }
    }
    long footer = (long) BitUtil.VH_BE_LONG.get(last, 0);
    if (crc.getValue() != f.checksum() || footer != f.checksum()) {
      return "its checksum is " + Long.toHexString(crc.getValue()) + " with footer " + Long.toHexString(footer)
          + ", the snapshot recorded " + Long.toHexString(f.checksum());
    }
    return null;
  }

  /** Fetches one file into a temporary name, verifying each chunk and the whole, then syncs and renames it. */
  private void copy(FileEntry f, SnapshotManifest manifest) throws IOException {
    BlobStore store = repository.store();
    int chunkSize = manifest.chunkSize();
    ChunkTable table = f.chunkTable(); // kept in the manifest (format 3), else in a blob (format 2), or none
    String tableBlob = manifest.chunkTableBlob(f);
    if (tableBlob != null) {
      try (InputStream in = store.read(tableBlob)) {
        table = ChunkTable.parse(in.readAllBytes(), f.name(), f.length(), f.checksum(), chunkSize,
            store.describe() + " blob " + tableBlob);
      }
    }
    Path part = dir.resolve(f.name() + PART);
    try (FileChannel out = FileChannel.open(part, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      int unit = table != null ? chunkSize : (int) Math.min(PIECE, f.length());
      byte[] buffer = new byte[unit];
      for (long position = 0; position < f.length(); ) {
        if (stopped) {
          return;
        }
        int n = (int) Math.min(unit, f.length() - position);
        copier.pace(n);
        readVerified(store, f, table, position, buffer, n);
        ByteBuffer bb = ByteBuffer.wrap(buffer, 0, n);
        long at = position;
        while (bb.hasRemaining()) {
          at += out.write(bb, at);
        }
        position += n;
      }
      out.force(true);
    }
    String problem = checksumProblem(part, f);
    if (problem != null) {
      Files.deleteIfExists(part);
      throw new CorruptIndexException("the copy of " + f.name() + " of snapshot '" + ref.snapshot() + "' does not match"
          + " its Lucene checksum: " + problem, f.blobName());
    }
    Files.move(part, dir.resolve(f.name()), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  /** Reads [position, position + n) of the file's blob into {@code buffer}, verified against its chunk, once more on a mismatch. */
  private void readVerified(BlobStore store, FileEntry f, ChunkTable table, long position, byte[] buffer, int n)
      throws IOException {
    for (int attempt = 1; ; attempt++) {
      try (InputStream in = store.read(f.blobName(), position, n)) {
        if (in.readNBytes(buffer, 0, n) != n) {
          throw new BlobStoreException(store.describe(), f.blobName(), "the response for "
              + BlobStoreException.range(position, n) + " ended early", null, true);
        }
      }
      if (table == null) {
        return; // verified as a whole once written
      }
      int chunk = (int) (position / table.chunkSize());
      int actual = ChunkTable.crc32c(buffer, 0, n);
      if (actual == table.checksum(chunk)) {
        return;
      }
      if (attempt == 2) {
        throw new CorruptIndexException("checksum mismatch in " + BlobStoreException.range(position, n) + " of blob "
            + f.blobName() + " (file " + f.name() + ") from " + store.describe() + ": the snapshot recorded crc32c "
            + Integer.toHexString(table.checksum(chunk)) + " but the store returned bytes with "
            + Integer.toHexString(actual) + ", twice", f.blobName());
      }
    }
  }

  /** Whether {@code file} is complete and verified here. */
  boolean isLocal(String file) {
    return local.contains(file);
  }

  /** The local copy of a complete file. */
  IndexInput openLocal(String file, IOContext context) throws IOException {
    return localDirectory.openInput(file, context);
  }

  /** The share of the bytes kept in blobs that is copied and verified here (0 to 1). */
  double progress() {
    return bytesToCopy == 0 ? 1 : (double) bytesLocal.get() / bytesToCopy;
  }

  /**
   * Stops copying, waiting for the file being copied to be abandoned; the files copied stay (for a later mount)
   * unless {@link #delete} is called.
   */
  @Override
  public void close() throws IOException {
    synchronized (passLock) {
      stopped = true; // before reading passRunning: a pass that begins after this sees it
      if (pass != null) {
        pass.cancel(true); // interrupts a fetch or a pause for the rate
      }
      long deadline = System.nanoTime() + STOP_WAIT_NANOS;
      while (passRunning) {
        long remaining = deadline - System.nanoTime();
        if (remaining <= 0) {
          throw new IOException("the full copy of '" + mount + "' did not stop within 30 s");
        }
        try {
          passLock.wait(Math.max(1, remaining / 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted waiting for the full copy of '" + mount + "' to stop");
        }
      }
    }
    localDirectory.close();
  }

  private static final long STOP_WAIT_NANOS = 30_000_000_000L;

  /** Stops copying and removes the copy (an unmount). */
  void delete() throws IOException {
    close();
    deleteTree(dir);
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (var paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
