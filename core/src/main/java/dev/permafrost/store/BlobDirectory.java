/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.store;

import dev.permafrost.blob.BlobStore;
import dev.permafrost.snapshot.CachedManifests;
import dev.permafrost.snapshot.FileEntry;
import dev.permafrost.snapshot.SnapshotManifest;
import dev.permafrost.snapshot.SnapshotRepository;
import dev.permafrost.snapshot.SnapshotSource;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.Collection;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.DataAccessHint;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FileTypeHint;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.IndexOutput;
import org.apache.lucene.store.Lock;
import org.apache.lucene.store.NoLockFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A read-only Lucene {@link Directory} over one snapshot in a repository, reading through a
 * {@link SharedRegionCache}: any code that takes a {@code Directory} can search the snapshot in place.
 *
 * <p>Opening it reads the snapshot's manifest and nothing else. {@link #listAll}, {@link #fileLength} and the
 * bytes the manifest keeps (small files whole, every other file's header, footer and the ranges that opening a
 * {@code DirectoryReader} reads) are served without touching the store, so a cold {@code DirectoryReader.open}
 * costs no request beyond the manifest. Other bytes are fetched range by range into the shared cache, and every
 * fetched chunk is verified against the checksum the snapshot recorded before it is served: a damaged blob fails
 * the read with a {@link org.apache.lucene.index.CorruptIndexException} naming the snapshot, file, blob and range,
 * never with wrong results.
 *
 * <pre>{@code
 * try (BlobDirectory dir = BlobDirectory.open(repo, "logs-2024.02.15", cache);
 *      DirectoryReader reader = DirectoryReader.open(dir)) {
 *   new IndexSearcher(reader).search(query, 10);
 * }
 * }</pre>
 *
 * <p>Every method that would write throws {@link UnsupportedOperationException}.
 */
public final class BlobDirectory extends Directory {
  private static final Logger log = LoggerFactory.getLogger(BlobDirectory.class);
  private final SnapshotManifest manifest;
  private final BlobStore store;
  private final String storeId;
  private final SharedRegionCache cache;
  private final String indexName;
  private final ConcurrentHashMap<String, IndexFile> files = new ConcurrentHashMap<>();
  private volatile boolean closed;

  private BlobDirectory(SnapshotManifest manifest, BlobStore store, SharedRegionCache cache, String indexName) {
    this.manifest = manifest;
    this.store = store;
    this.storeId = store.describe();
    this.cache = cache;
    this.indexName = indexName;
  }

  /**
   * Mounts snapshot {@code snapshotName} of {@code repository}, reading its manifest (one blob request). Its
   * reads are counted in the cache's stats under the snapshot's name.
   *
   * @throws dev.permafrost.snapshot.SnapshotException.NotFound if there is no such snapshot
   * @throws dev.permafrost.snapshot.SnapshotException.CorruptManifest if its manifest is truncated or corrupt
   */
  public static BlobDirectory open(SnapshotRepository repository, String snapshotName, SharedRegionCache cache) throws IOException {
    return open(repository, snapshotName, cache, snapshotName);
  }

  /** Mounts a snapshot as {@link #open(SnapshotRepository, String, SharedRegionCache)} does, counting its reads under {@code indexName}. */
  public static BlobDirectory open(SnapshotRepository repository, String snapshotName, SharedRegionCache cache, String indexName)
      throws IOException {
    Objects.requireNonNull(cache, "cache");
    cache.ensureOpen();
    SnapshotManifest manifest = repository.readManifest(snapshotName);
    return open(manifest, repository.store(), cache, Objects.requireNonNull(indexName, "indexName"));
  }

  /**
   * Mounts a manifest already read from {@code repository} (for instance again, from the cache, through
   * {@link CachedManifests}), counting its reads under {@code indexName}. Reads nothing.
   */
  public static BlobDirectory open(SnapshotSource repository, SnapshotManifest manifest, SharedRegionCache cache,
      String indexName) {
    Objects.requireNonNull(cache, "cache");
    cache.ensureOpen();
    return open(manifest, repository.store(), cache, Objects.requireNonNull(indexName, "indexName"));
  }

  /** Mounts an already-read manifest whose blobs are in {@code store}. */
  static BlobDirectory open(SnapshotManifest manifest, BlobStore store, SharedRegionCache cache, String indexName) {
    log.info("mounted snapshot '{}' of {} as '{}': {} files, {} bytes, {} documents", manifest.name(), store.describe(),
        indexName, manifest.files().size(), manifest.info().totalBytes(), manifest.info().numDocs());
    if (manifest.chunkSize() == 0 && manifest.ref() != null
        && manifest.ref().blobName().equals(SnapshotRepository.manifestBlob(manifest.name()))) {
      // a Permafrost snapshot of format 1; other sources' formats have no chunk checksums, as their READMEs say
      log.warn("snapshot '{}' in {} has no chunk checksums (taken before manifest format 2): its ranges are verified"
          + " only when a whole file is fetched; take a new snapshot to have every read verified", manifest.name(),
          store.describe());
    }
    return new BlobDirectory(manifest, store, cache, indexName);
  }

  /** The manifest of the mounted snapshot. */
  public SnapshotManifest manifest() {
    return manifest;
  }

  /** The name this directory's reads are counted under in {@link CacheStats#perIndex()}. */
  public String indexName() {
    return indexName;
  }

  /** This index's counts in the shared cache. */
  public CacheStats.Counts stats() {
    return cache.stats().perIndex().getOrDefault(indexName, CacheStats.Counts.ZERO);
  }

  /** Removes this index's files from the shared cache (regions being filled right now stay). */
  public void clearCache() {
    cache.clear(files.values().stream().map(f -> f.cachedBlob).filter(Objects::nonNull).toList());
  }

  @Override
  public String[] listAll() {
    ensureOpen();
    return manifest.files().stream().map(FileEntry::name).sorted().toArray(String[]::new);
  }

  @Override
  public long fileLength(String name) throws IOException {
    ensureOpen();
    return entry(name).length();
  }

  private FileEntry entry(String name) throws NoSuchFileException {
    FileEntry entry = manifest.file(name);
    if (entry == null) {
      throw new NoSuchFileException("no file '" + name + "' in snapshot '" + manifest.name() + "' (" + storeId + ")");
    }
    return entry;
  }

  @Override
  public IndexInput openInput(String name, IOContext context) throws IOException {
    ensureOpen();
    FileEntry entry = entry(name);
    IndexFile file = files.computeIfAbsent(name, n -> {
      CachedBlob blob = entry.isKeptWhole() ? null
          : cache.acquire(storeId, entry, manifest.chunkSize());
      return new IndexFile(entry, manifest.name(), store, storeId, blob, cache.counter(indexName, extension(name)),
          cache.directReadBudget);
    });
    if (closed) { // closed while we acquired: give it back
      release(file);
      throw new AlreadyClosedException("this BlobDirectory is closed: " + this);
    }
    // a damaged file's error names where its bytes are stored
    String where = entry.isKeptWhole() ? " in " + manifest.name() : " in " + manifest.name() + ", blob " + entry.blobName();
    return new BlobIndexInput("BlobIndexInput(" + name + where + ")", file, fillSize(context),
        context.hints(FileTypeHint.class).noneMatch(h -> h == FileTypeHint.INDEX));
  }

  /** What the inputs of {@code name} share, once one was opened (else null); for tests of the read path. */
  IndexFile openedFile(String name) {
    return files.get(name);
  }

  private static int fillSize(IOContext context) {
    if (context == IOContext.READONCE || context.context() == IOContext.Context.MERGE) {
      return BlobIndexInput.SEQUENTIAL_FILL;
    }
    if (context.hints(DataAccessHint.class).anyMatch(h -> h == DataAccessHint.SEQUENTIAL)) {
      return BlobIndexInput.SEQUENTIAL_FILL;
    }
    if (context.hints(DataAccessHint.class).anyMatch(h -> h == DataAccessHint.RANDOM)) {
      return BlobIndexInput.RANDOM_FILL;
    }
    return BlobIndexInput.NORMAL_FILL;
  }

  static String extension(String name) {
    if (name.startsWith("segments")) {
      return "segments";
    }
    int dot = name.lastIndexOf('.');
    return dot < 0 ? "" : name.substring(dot + 1);
  }

  private UnsupportedOperationException readOnly(String what) {
    return new UnsupportedOperationException(
        "BlobDirectory is read-only: cannot " + what + " in snapshot '" + manifest.name() + "' (" + storeId + ")");
  }

  @Override
  public void deleteFile(String name) {
    throw readOnly("delete " + name);
  }

  @Override
  public IndexOutput createOutput(String name, IOContext context) {
    throw readOnly("create " + name);
  }

  @Override
  public IndexOutput createTempOutput(String prefix, String suffix, IOContext context) {
    throw readOnly("create a temporary file");
  }

  @Override
  public void sync(Collection<String> names) {
    throw readOnly("sync files");
  }

  @Override
  public void syncMetaData() {
    throw readOnly("sync metadata");
  }

  @Override
  public void rename(String source, String dest) {
    throw readOnly("rename " + source);
  }

  /**
   * Returns a lock that guards nothing: a snapshot is immutable and no writer can ever open this directory, so
   * tools that take the write lock only to keep writers out (such as {@code CheckIndex}) can run on it.
   */
  @Override
  public Lock obtainLock(String name) throws IOException {
    ensureOpen();
    return NoLockFactory.INSTANCE.obtainLock(this, name);
  }

  @Override
  public Set<String> getPendingDeletions() {
    return Set.of();
  }

  @Override
  protected void ensureOpen() throws AlreadyClosedException {
    if (closed) {
      throw new AlreadyClosedException("this BlobDirectory is closed: " + this);
    }
  }

  private void release(IndexFile file) {
    if (file.cachedBlob != null && files.remove(file.name, file)) {
      cache.release(file.cachedBlob);
    }
  }

  /** Releases this index's hold on the cache; its inputs fail afterwards. The cache itself stays open. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (IndexFile f : files.values()) {
      release(f);
    }
    log.info("unmounted snapshot '{}' ('{}')", manifest.name(), indexName);
  }

  @Override
  public String toString() {
    return "BlobDirectory(" + manifest.name() + " in " + storeId + ")";
  }
}
